import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { migrate } from '@/database/data-source';
import { dropDatabase } from '../test/support/isolated-database';
import { LlmServer } from '../test/support/llm-server';
import { seedBenchTenant } from './seed-tenant';
import { startServer, stopServer } from './replicas';
import { percentile, runBench } from './stats';

/**
 * `npm run bench:calls`: two API replicas (compiled, each with its workers) share PostgreSQL and Redis. 50 sandbox
 * calls are placed at once over both; each then takes 10 customer turns (`simulate say`) against a local model that
 * answers in a fixed 50 ms, and 5 live actions (`say`) posted to the replica that does not own the call. Prints the
 * set-up rate, the turn latency minus the model's 50 ms, and the action round trip (answered once the owner has
 * performed it), p50/p99.
 */
const CALLS = Number(process.env.BENCH_CALLS ?? 50);
const TURNS = Number(process.env.BENCH_TURNS ?? 10);
const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 5);
const MODEL_MS = 50;

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const dbUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
dbUrl.pathname = `/cap_bench_${run}`;
const storage = path.join(os.tmpdir(), `cap-bench-${run}`);

const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false, maxSockets: 256 });

interface Answer {
  status: number;
  body: { data?: Record<string, unknown> & { items?: unknown[] } };
  ms: number;
}

function call(base: string, token: string, method: string, p: string, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${base}${p}`,
      {
        method,
        agent,
        headers: {
          Host: 'bench.localhost',
          Authorization: `Bearer ${token}`,
          ...(payload
            ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString() || '{}'),
            ms: Number(process.hrtime.bigint() - started) / 1e6,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function seed(): Promise<string> {
  await migrate(dbUrl.toString());
  const db = new Client({ connectionString: dbUrl.toString() });
  await db.connect();
  const { token } = await seedBenchTenant(db, 'bench');
  await db.end();
  return token;
}

const progress = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);

const fmt = (sorted: number[]) =>
  `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms (n=${sorted.length})`;

async function main(): Promise<void> {
  const llm = await LlmServer.start();
  llm.latencyMs = MODEL_MS;
  const token = await seed();
  progress('seeded');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl.toString(),
    REDIS_PREFIX: `cap-bench-${run}`,
    STORAGE_DIR: storage,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'silent',
    SERVICE_DOMAIN: 'localhost',
    LLM_BASE_URL: llm.url,
    SANDBOX_ANSWER_DELAY_MS: '0',
  };
  const a = await startServer(env);
  const b = await startServer(env);
  progress('replicas up');
  const replicas = [a.url, b.url];
  try {
    const agentRes = await call(a.url, token, 'POST', '/api/v1/agents', {
      name: 'Bench agent',
      status: 'ready',
    });
    const agentId = agentRes.body.data!.agent_uuid as string;
    const number = await call(a.url, token, 'POST', '/api/v1/phone-numbers', {
      number: '+16282000100',
      provider: 'sandbox',
    });
    await call(a.url, token, 'POST', `/api/v1/agents/${agentId}/phone-numbers`, {
      phone_number_uuid: number.body.data!.uuid,
      channels: ['call'],
    });

    // Set-up: every call placed at once, alternating replicas, until each is in-progress.
    const setupStart = Date.now();
    const placed = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        call(replicas[i % 2], token, 'POST', '/api/v1/call', {
          agent_uuid: agentId,
          to: `+1415${200 + i}7777`,
        }),
      ),
    );
    const refused = placed.filter((r) => r.status !== 201);
    if (refused.length) throw new Error(`calls refused: ${JSON.stringify(refused[0].body)}`);
    const ids = placed.map((r) => r.body.data!.uuid as string);
    for (let polls = 0; ; polls += 1) {
      const live = await call(a.url, token, 'GET', `/api/v1/calls?status=in-progress&per_page=100`);
      if ((live.body.data!.items ?? []).length >= CALLS) break;
      if (polls > 3000) throw new Error('calls were not all answered within about 30 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    const setupSeconds = (Date.now() - setupStart) / 1000;
    progress('calls answered');

    // Turns: each call takes its turns one after another on the replica that placed it; calls run side by side.
    const turnMs: number[] = [];
    const turnsStart = Date.now();
    await Promise.all(
      ids.map(async (id, i) => {
        for (let n = 0; n < TURNS; n += 1) {
          const r = await call(replicas[i % 2], token, 'POST', `/api/v1/calls/${id}/simulate`, {
            action: 'say',
            text: `Question ${n} about my order`,
          });
          if (r.status !== 200) throw new Error(`turn: ${r.status} ${JSON.stringify(r.body)}`);
          turnMs.push(r.ms - MODEL_MS);
        }
      }),
    );
    const turnsSeconds = (Date.now() - turnsStart) / 1000;
    progress('turns done');

    // Actions: posted to the replica that does not own the call, answered once the owner performed them.
    const actionMs: number[] = [];
    await Promise.all(
      ids.map(async (id, i) => {
        for (let n = 0; n < ACTIONS; n += 1) {
          const r = await call(replicas[(i + 1) % 2], token, 'POST', `/api/v1/calls/action/${id}/say`, {
            message: `Notice ${n}`,
          });
          if (r.status !== 200) throw new Error(`action: ${r.status} ${JSON.stringify(r.body)}`);
          actionMs.push(r.ms);
        }
      }),
    );
    await Promise.all(
      ids.map((id, i) =>
        call(replicas[i % 2], token, 'POST', `/api/v1/calls/${id}/simulate`, { action: 'hangup' }),
      ),
    );

    turnMs.sort((x, y) => x - y);
    actionMs.sort((x, y) => x - y);
    process.stdout.write(
      [
        `calls set up:                      ${CALLS} in ${setupSeconds.toFixed(2)} s = ${(CALLS / setupSeconds).toFixed(1)} calls/s (POST /call to in-progress, 2 replicas)`,
        `turns:                             ${turnMs.length} in ${turnsSeconds.toFixed(1)} s (${CALLS} calls side by side)`,
        `turn latency minus the model 50 ms: ${fmt(turnMs)}`,
        `action round trip (non-owner):     ${fmt(actionMs)}`,
        `model calls:                       ${llm.calls.length}`,
        `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
      ].join('\n') + '\n',
    );
  } finally {
    await Promise.all([stopServer(a.child), stopServer(b.child)]);
    agent.destroy();
    await llm.close();
    await dropDatabase(dbUrl.toString());
    fs.rmSync(storage, { recursive: true, force: true });
  }
}

runBench(main);
