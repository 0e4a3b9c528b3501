import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { dropDatabase } from '../test/support/isolated-database';
import { percentile, runBench } from './stats';
import { DataSource } from 'typeorm';
import { loadConfig } from '@/config/app.config';
import { prepareRuntime, startApi } from '@/bootstrap';
import { OutboxService } from '@/modules/events/outbox.service';
import { WebhooksService } from '@/modules/events/webhooks.service';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';

/**
 * `npm run bench:webhooks`: 6,000 events written to the outbox at 100 a second (each in its own transaction, as the
 * domain modules do), delivered to one signed workspace webhook on a local receiver. Reports deliveries a second,
 * the time from outbox write to receipt (p50, p99, max), losses and duplicates by webhook-id.
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 6000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const DRAIN_TIMEOUT_MS = 60_000;

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const dbUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
dbUrl.pathname = `/cap_bench_${run}`;

async function main(): Promise<void> {
  const arrivals = new Map<string, number[]>();
  const writtenAt = new Map<number, number>();
  const latencies: number[] = [];
  let firstArrival = 0;
  let lastArrival = 0;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      const id = String(req.headers['webhook-id']);
      const seen = arrivals.get(id) ?? [];
      seen.push(now);
      arrivals.set(id, seen);
      if (seen.length === 1) {
        const n = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { n: number } }).data.n;
        latencies.push(now - writtenAt.get(n)!);
        firstArrival ||= now;
        lastArrival = now;
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;

  const storage = path.join(os.tmpdir(), `cap-bench-${run}`);
  const config = await prepareRuntime(
    loadConfig({
      ...process.env,
      NODE_ENV: 'production',
      PORT: '0',
      DATABASE_URL: dbUrl.toString(),
      REDIS_PREFIX: `cap-bench-${run}`,
      STORAGE_DIR: storage,
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'silent',
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      RUN_WORKERS: 'true',
    }),
  );
  const api = await startApi(config, { host: '127.0.0.1' });
  try {
    const ws = await api.app.get(WorkspacesService).createWorkspace('bench', 'Benchmark');
    await api.app.get(WebhooksService).create(ws.id, {
      url: `http://127.0.0.1:${port}/hook`,
      events: ['conversation_update'],
      is_active: true,
      secret_key: 'whsec_' + randomBytes(24).toString('base64'),
    });
    const dataSource = api.app.get(DataSource);
    const outbox = api.app.get(OutboxService);

    const started = Date.now();
    const writes: Promise<void>[] = [];
    for (let n = 0; n < EVENTS; n++) {
      const due = started + (n * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      writes.push(
        dataSource.transaction(async (m) => {
          writtenAt.set(n, Date.now());
          await outbox.record(m, ws.id, [
            { type: 'conversation_update', agentId: null, data: { n, content: 'benchmark message' } },
          ]);
        }),
      );
    }
    await Promise.all(writes);
    const written = Date.now();
    const until = Date.now() + DRAIN_TIMEOUT_MS;
    while (arrivals.size < EVENTS && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1000)); // late duplicates, if any
    latencies.sort((a, b) => a - b);
    const duplicates = [...arrivals.values()].reduce((s, v) => s + v.length - 1, 0);
    process.stdout.write(
      [
        `events written:            ${EVENTS} at ${RATE}/s in ${((written - started) / 1000).toFixed(1)} s`,
        `delivered (unique ids):    ${arrivals.size}`,
        `lost:                      ${EVENTS - arrivals.size}`,
        `duplicates by webhook-id:  ${duplicates}`,
        `deliveries/s:              ${(arrivals.size / ((lastArrival - firstArrival) / 1000)).toFixed(1)} (first to last receipt)`,
        `outbox write -> receipt:   p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms`,
        `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
      ].join('\n') + '\n',
    );
  } finally {
    await api.stop();
    receiver.closeAllConnections();
    receiver.close();
    await dropDatabase(dbUrl.toString());
    fs.rmSync(storage, { recursive: true, force: true });
  }
}

runBench(main);
