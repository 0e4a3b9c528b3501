import { createHash } from 'node:crypto';
import * as https from 'node:https';
import express, { Request, Response } from 'express';
import { Pool } from 'pg';
import type { TlsMaterial } from '@/common/http/tls';
import { agentViewSql } from '@/modules/agents/agent-views.repository';
import { AgentWebhooksRepository } from '@/modules/agents/collections/agent-webhooks.repository';
import { PhoneNumberBindingsRepository } from '@/modules/phone-numbers/phone-numbers.repository';

const VIEW_SQL = agentViewSql({
  bindings: PhoneNumberBindingsRepository.AGENT_VIEW_SUB_SELECT,
  webhooks: AgentWebhooksRepository.AGENT_VIEW_SUB_SELECT,
});

/**
 * The comparison handler of the benchmark: bare Express on the same TLS material and database, doing what
 * the API must do at least for GET /api/v1/agents/{uuid}: resolve the tenant from Host, check the bearer
 * token (SHA-256, one indexed SELECT), run the same whole-agent SELECT as the API, answer JSON.
 */
export async function startBaseline(
  databaseUrl: string,
  serviceDomain: string,
  tls: TlsMaterial,
): Promise<{ port: number; close: () => Promise<void> }> {
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  const tenants = new Map<string, string>();
  const app = express();
  app.disable('x-powered-by');
  app.get('/api/v1/agents/:uuid', async (req: Request, res: Response) => {
    try {
      const host = String(req.headers.host ?? '').split(':')[0];
      const slug = host.endsWith(`.${serviceDomain}`) ? host.slice(0, -serviceDomain.length - 1) : '';
      let workspaceId = tenants.get(slug);
      if (!workspaceId) {
        const ws = await pool.query<{ id: string }>('SELECT id FROM workspaces WHERE slug = $1', [slug]);
        if (!ws.rows[0]) return res.status(404).json({ success: false, message: 'Workspace not found' });
        workspaceId = ws.rows[0].id;
        tenants.set(slug, workspaceId);
      }
      const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
      if (!match) return res.status(401).json({ success: false, message: 'Missing token' });
      const hash = createHash('sha256').update(match[1]).digest('hex');
      const token = await pool.query(
        'SELECT id, scopes FROM api_tokens WHERE workspace_id = $1 AND token_hash = $2 AND revoked_at IS NULL',
        [workspaceId, hash],
      );
      if (!token.rows[0]) return res.status(401).json({ success: false, message: 'Invalid token' });
      const agent = await pool.query({
        name: 'agent_view',
        text: VIEW_SQL,
        values: [workspaceId, [req.params.uuid]],
      });
      if (!agent.rows[0]) return res.status(404).json({ success: false, message: 'Agent not found' });
      return res.json({ success: true, message: 'OK', data: agent.rows[0] });
    } catch {
      return res.status(500).json({ success: false, message: 'error' });
    }
  });
  const server = https.createServer({ key: tls.key, cert: tls.cert, minVersion: 'TLSv1.2' }, app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}
