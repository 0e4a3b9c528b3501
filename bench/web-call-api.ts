import { loadConfig } from '@/config/app.config';
import { prepareRuntime, startApi } from '@/bootstrap';
import { loadOrCreateTlsMaterial } from '@/common/http/tls';
import { urlPolicy } from '@/common/validation/validators';
import { playerStats } from '@/modules/voice/media/frame-player';

/** What the benchmark asks the API process over IPC. */
export type ApiRequest = { type: 'stats' } | { type: 'stop' };
/** The process's own counters: CPU (µs, user + system), resident memory, agent frames sent and sent late. */
export interface ApiStats {
  cpuMicros: number;
  rss: number;
  framesSent: number;
  framesLate: number;
}

/**
 * The API of `npm run bench:web-call` in a process of its own (workers on), so that its CPU is its own: sends its
 * port, then answers `stats` with its CPU time and the media sessions' frame counters, and stops on `stop`.
 */
async function main(): Promise<void> {
  const config = await prepareRuntime(loadConfig({ ...process.env, PORT: '0', RUN_WORKERS: 'true' }));
  urlPolicy.allowHttp = config.network.allowPrivateTargets;
  const api = await startApi(config, { host: '127.0.0.1', tls: await loadOrCreateTlsMaterial(config) });
  process.send?.({ port: api.server.port });
  process.on('message', (m: ApiRequest) => {
    if (m.type === 'stats') {
      const cpu = process.cpuUsage();
      const stats: ApiStats = {
        cpuMicros: cpu.user + cpu.system,
        rss: process.memoryUsage().rss,
        framesSent: playerStats.framesSent,
        framesLate: playerStats.framesLate,
      };
      process.send?.(stats);
    } else void api.stop().then(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
