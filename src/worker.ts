import 'reflect-metadata';
import 'dotenv/config';
// Before anything that loads HTTP, pg, ioredis or Bull: tracing instruments them as they load (when asked for).
import { TELEMETRY } from '@/common/telemetry/register';
import { Logger } from 'nestjs-pino';
import { loadConfig } from '@/config/app.config';
import { rootLogger } from '@/common/logging/logging.module';
import { QUEUES } from '@/common/queue/queues';
import { serveWorkerHealth } from '@/modules/health/worker-health';
import { onShutdown, prepareRuntime, startWorker } from '@/bootstrap';

/** Workers alone, for scaling out: every Bull processor, and a health listener on WORKER_HEALTH_PORT. */
async function main(): Promise<void> {
  const loaded = loadConfig();
  const boot = rootLogger(loaded).child({ context: 'Bootstrap' });
  if (TELEMETRY) boot.info(TELEMETRY);
  const config = await prepareRuntime(loaded, (line) => boot.info(line));
  const app = await startWorker(config);
  const health =
    config.workerHealthPort === undefined
      ? undefined
      : await serveWorkerHealth(app, config, { port: config.workerHealthPort });
  const logger = app.get(Logger);
  logger.log(
    `Workers started on queues ${Object.values(QUEUES).join(', ')}; ` +
      (health
        ? `health on http port ${health.port} (all interfaces)`
        : 'no health listener (WORKER_HEALTH_PORT unset)'),
    'Bootstrap',
  );
  onShutdown(
    async () => {
      health?.drain(); // readiness 503 while running jobs finish
      await app.close();
      await health?.close(1000);
    },
    config.shutdownTimeoutMs,
    (m) => logger.log(m, 'Shutdown'),
  );
}

main().catch((err: Error) => {
  process.stderr.write(`Startup failed: ${err.message}\n`);
  process.exit(1);
});
