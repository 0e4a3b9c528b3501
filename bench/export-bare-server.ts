import express from 'express';
import { Pool } from 'pg';

/**
 * The baseline of the export benchmark: Express and pg with the same keyset query and the same JSON, and nothing
 * else (no tenant, token, rate limit, policy, validation or cursor signing).
 */
const LABELS: Record<string, string> = {
  phone: 'Phone call',
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  whatsapp_call: 'WhatsApp call',
  messenger: 'Messenger',
  instagram: 'Instagram',
  chat: 'Web chat',
};

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = express();
app.disable('x-powered-by');

app.get('/export/:workspaceId', async (req, res) => {
  try {
    const limit = Math.min(Math.max(Number(req.query.limit ?? 500) || 500, 1), 1000);
    const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : null;
    const params: unknown[] = [req.params.workspaceId];
    let after = '';
    if (cursor) {
      const [t, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [number, string];
      params.push(new Date(t), id);
      after = 'AND (created_at, id) > ($2, $3::uuid)';
    }
    params.push(limit + 1);
    const { rows } = await pool.query(
      `SELECT id, conversation_id, session_id, contact_id, agent_id, channel, direction, sender, message_type,
              content, created_at
         FROM messages WHERE workspace_id = $1 ${after}
        ORDER BY created_at, id LIMIT $${params.length}`,
      params,
    );
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    res.json({
      meta: { policy: 'raw', channel: null, from: null, to: null, generated_at: new Date().toISOString() },
      messages: page.map((r) => ({
        message_uuid: r.id,
        conversation_uuid: r.conversation_id,
        session_uuid: r.session_id,
        contact_uuid: r.contact_id,
        agent_uuid: r.agent_id,
        channel: r.channel,
        channel_label: LABELS[r.channel],
        direction: r.direction,
        sender: r.sender,
        message_type: r.message_type,
        content: r.content,
        content_disclosure: 'raw',
        created_at: r.created_at.toISOString(),
      })),
      pagination: {
        next_cursor: hasMore
          ? Buffer.from(JSON.stringify([last.created_at.getTime(), last.id])).toString('base64url')
          : null,
        has_more: hasMore,
        limit,
      },
    });
  } catch (err) {
    res.status(500).json({ error: (err as Error).message });
  }
});

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end().finally(() => process.exit(0));
});
