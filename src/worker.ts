import 'reflect-metadata';
import 'dotenv/config';
import { Logger } from 'nestjs-pino';
import { loadConfig } from '@/config/app.config';
import { onShutdown, prepareRuntime, startWorker } from '@/bootstrap';

/** Workers alone, for scaling out: every Bull processor, no HTTP listener. */
async function main(): Promise<void> {
  const config = await prepareRuntime(loadConfig());
  const app = await startWorker(config);
  const logger = app.get(Logger);
  logger.log('Workers started', 'Bootstrap');
  onShutdown(
    () => app.close(),
    config.shutdownTimeoutMs,
    (m) => logger.log(m, 'Shutdown'),
  );
}

main().catch((err: Error) => {
  process.stderr.write(`Startup failed: ${err.message}\n`);
  process.exit(1);
});
