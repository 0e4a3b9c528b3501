// First: with OTEL_EXPORTER_OTLP_ENDPOINT set, tracing instruments HTTP, pg, ioredis and Bull as they load.
import '@/common/telemetry/register';
import { loadConfig } from '@/config/app.config';
import { prepareRuntime, startApi } from '@/bootstrap';
import { stopTelemetry } from '@/common/telemetry/start';
import { loadOrCreateTlsMaterial } from '@/common/http/tls';
import { urlPolicy } from '@/common/validation/validators';

/**
 * One more API replica in its own OS process, workers on, on the database and Redis prefix of its environment
 * (the replicas e2e suite forks it under ts-node, `npm run bench:calls` compiled). Sends its port over IPC, and whether
 * the tracing SDK was loaded; stops on any IPC message (exporting the spans left when tracing).
 */
async function main(): Promise<void> {
  // The process that forked it is gone (killed, or its test worker ended): so is this replica, started or not.
  const running: { api?: Awaited<ReturnType<typeof startApi>> } = {};
  process.once('disconnect', () => {
    setTimeout(() => process.exit(0), 5_000).unref();
    void (running.api?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
  });
  const config = await prepareRuntime(loadConfig({ ...process.env, PORT: '0', RUN_WORKERS: 'true' }));
  urlPolicy.allowHttp = config.network.allowPrivateTargets;
  const api = (running.api = await startApi(config, {
    host: '127.0.0.1',
    tls: await loadOrCreateTlsMaterial(config),
  }));
  const tracing = Object.keys(require.cache).some((file) => file.includes('/@opentelemetry/sdk-trace/'));
  process.send?.({ port: api.server.port, tracing });
  process.on(
    'message',
    () =>
      void api
        .stop()
        .then(() => stopTelemetry())
        .then(() => process.exit(0)),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
