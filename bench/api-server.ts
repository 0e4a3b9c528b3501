import { loadConfig } from '@/config/app.config';
import { prepareRuntime, startApi } from '@/bootstrap';
import { loadOrCreateTlsMaterial } from '@/common/http/tls';
import { startBaseline } from './api-baseline';

/**
 * The server side of `npm run bench:api`, in its own process so that the load generator does not share its
 * event loop: `app` runs the real API (same bootstrap as `npm start`), `baseline` the bare Express handler.
 */
async function main(): Promise<void> {
  const mode = process.argv[2];
  const config = await prepareRuntime(loadConfig({ ...process.env, PORT: '0', RUN_WORKERS: 'false' }));
  const tls = await loadOrCreateTlsMaterial(config);
  if (mode === 'app') {
    const api = await startApi(config, { host: '127.0.0.1', tls });
    process.send?.({ port: api.server.port });
    process.on('message', () => void api.stop().then(() => process.exit(0)));
  } else {
    const base = await startBaseline(config.database.url, config.serviceDomain, tls);
    process.send?.({ port: base.port });
    process.on('message', () => void base.close().then(() => process.exit(0)));
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
