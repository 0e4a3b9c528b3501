import 'reflect-metadata';
import { loadConfig } from '@/config/app.config';
import { resolveEncryptionKey } from '@/common/crypto/encryption-key';
import { startApi } from '@/bootstrap';
import { TokensService } from '@/modules/workspaces/tokens.service';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';

/**
 * The real API for the export benchmark, in its own process: plain HTTP behind a (simulated) TLS proxy so that it
 * compares with the bare handler on equal terms. Creates the benchmark's workspaces and sends their tokens back.
 */
async function main(): Promise<void> {
  const config = resolveEncryptionKey(loadConfig({ ...process.env, PORT: '0', TRUST_PROXY: 'true' }));
  const api = await startApi(config, { host: '127.0.0.1' });
  const workspaces = api.app.get(WorkspacesService);
  const tokens = api.app.get(TokensService);
  const count = Number(process.env.BENCH_WORKSPACES ?? 10);
  const tenants = [];
  for (let i = 0; i < count; i++) {
    const slug = `bench-export-${i}`;
    const ws = await workspaces.createWorkspace(slug, `Bench ${i}`);
    const user = await workspaces.createUser(slug, { email: `bench@${slug}.test`, role: 'developer' });
    const created = await tokens.create(slug, { name: 'bench', user: user.id });
    tenants.push({ slug, workspaceId: ws.id, token: created.token });
  }
  process.send?.({ port: api.server.port, tenants });
  process.on('SIGTERM', () => {
    void api.stop().finally(() => process.exit(0));
  });
}

main().catch((err: Error) => {
  process.stderr.write(`bench API failed: ${err.stack}\n`);
  process.exit(1);
});
