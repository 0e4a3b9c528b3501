import 'reflect-metadata';
import 'dotenv/config';
// Before anything that loads HTTP, pg, ioredis or Bull: tracing instruments them as they load (when asked for).
import { TELEMETRY } from '@/common/telemetry/register';
import { Logger } from 'nestjs-pino';
import { loadConfig } from '@/config/app.config';
import { rootLogger } from '@/common/logging/logging.module';
import { onShutdown, prepareRuntime, startApi } from '@/bootstrap';

/** The API process (and, with RUN_WORKERS=true, the workers): creates and migrates the database, then serves HTTPS. */
async function main(): Promise<void> {
  const loaded = loadConfig();
  const boot = rootLogger(loaded).child({ context: 'Bootstrap' });
  if (TELEMETRY) boot.info(TELEMETRY);
  const config = await prepareRuntime(loaded, (line) => boot.info(line));
  const api = await startApi(config);
  const logger = api.app.get(Logger);
  const scheme = config.trustProxy ? 'http (behind a TLS proxy)' : 'https';
  logger.log(
    `API listening on ${scheme} port ${api.server.port} (all interfaces); tenants at https://<slug>.${config.serviceDomain}:${api.server.port}` +
      `; workers ${config.runWorkers ? 'on' : 'off'}; docs at /docs`,
    'Bootstrap',
  );
  onShutdown(api.stop, config.shutdownTimeoutMs, (m) => logger.log(m, 'Shutdown'));
}

main().catch((err: Error) => {
  process.stderr.write(`Startup failed: ${err.message}\n`);
  process.exit(1);
});
