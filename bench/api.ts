import { fork, ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { migrate } from '@/database/data-source';
import { seedBenchTenant } from './seed-tenant';

/**
 * `npm run bench:api`: seeds a fresh database with one workspace and 10,000 agents, then runs autocannon
 * (50 connections, 10 s each) against the real API on GET /api/v1/agents/{uuid} (random seeded uuids) and
 * against a bare Express + pg handler doing the same tenant, token and agent SELECT, taking turns BENCH_ROUNDS
 * times (default 3), then on GET /api/v1/agents?per_page=20 and a reference route; prints requests/s, p50/p99
 * latency and the median ratio. Both servers run compiled (`tsconfig.bench.json`), each in its own process.
 * BENCH_CPU_PROF_DIR=dir writes their CPU profiles there.
 */
const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const baseUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const adminUrl = baseUrl.toString();
baseUrl.pathname = `/cap_bench_${run}`;
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  NODE_ENV: 'production',
  DATABASE_URL: baseUrl.toString(),
  REDIS_PREFIX: `cap-bench-${run}`,
  STORAGE_DIR: path.join(os.tmpdir(), `cap-bench-${run}`),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  // The benchmark measures throughput, not the per-workspace limit of 1000 requests a minute.
  RATE_LIMIT_PER_MINUTE: '100000000',
  LOG_LEVEL: 'silent',
  SERVICE_DOMAIN: 'localhost',
};

async function seed(): Promise<{ slug: string; token: string; ids: string[] }> {
  await migrate(env.DATABASE_URL);
  const db = new Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  const slug = 'bench';
  const { workspaceId: ws, token } = await seedBenchTenant(db, slug);
  const ids: string[] = [];
  for (let start = 0; start < AGENTS; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, AGENTS - start) }, () => uuidv7());
    ids.push(...batch);
    await db.query(
      `INSERT INTO agents (id, workspace_id, name, company_name, role, status, description)
       SELECT id, $2, 'Agent ' || n, 'Company ' || (n % 97), 'Role ' || (n % 13),
              (ARRAY['pending','ready','in_progress','paused','completed'])[1 + n % 5], 'Benchmark agent'
         FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, n)`,
      [batch, ws],
    );
  }
  // Every agent holds a little knowledge and one rule of each kind, as a configured agent would.
  for (const [table, cols, values] of [
    ['agent_notes', 'kind, content, "order"', `'guideline', 'Be concise and friendly.', 1`],
    ['agent_notes', 'kind, content, "order"', `'note', 'Opening hours are 9 to 17.', 1`],
    ['agent_routing_rules', 'detection_mode, trigger_keyword, priority', `'exact', 'billing', 1`],
    [
      'agent_guard_rules',
      'name, then_action, when_condition, example_phrases',
      `'Human', 'forward', 'asks for a human', '["a human please"]'`,
    ],
  ])
    await db.query(
      `INSERT INTO ${table} (id, workspace_id, agent_id, ${cols})
       SELECT gen_random_uuid(), workspace_id, id, ${values} FROM agents WHERE workspace_id = $1`,
      [ws],
    );
  await db.query('ANALYZE');
  await db.end();
  return { slug, token, ids };
}

function startServer(
  mode: 'app' | 'baseline',
  extraEnv: Record<string, string> = {},
): Promise<{ child: ChildProcess; port: number }> {
  // The servers run compiled (`tsconfig.bench.json`, as `npm start` runs dist/), not under ts-node, whose
  // register hook alone slows every event emitter (it loads node:domain).
  const root = path.join(__dirname, '..');
  const child = fork(path.join(root, '.bench-build', 'bench', 'api-server.js'), [mode], {
    env: { ...env, ...extraEnv, TS_NODE_BASEURL: path.join(root, '.bench-build') },
    cwd: root,
    execArgv: [
      '-r',
      'tsconfig-paths/register',
      // BENCH_CPU_PROF_DIR=dir writes a CPU profile of each server there when it stops.
      ...(process.env.BENCH_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
        : []),
    ],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  await new Promise<void>((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.send('stop');
    setTimeout(() => child.kill('SIGKILL'), 15000).unref();
  });
}

interface Figures {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(label: string, port: number, token: string, path: () => string): Promise<Figures> {
  const result = await autocannon({
    url: `https://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { host: 'bench.localhost', authorization: `Bearer ${token}` },
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }],
    tlsOptions: { rejectUnauthorized: false },
  } as autocannon.Options);
  return {
    label,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const { token, ids } = await seed();
  process.stdout.write(`seeded ${ids.length} agents in ${Date.now() - started} ms\n`);
  if (process.env.BENCH_KEEP_DB) process.stdout.write(`token ${token}\n`);
  const randomAgent = () => `/api/v1/agents/${ids[Math.floor(Math.random() * ids.length)]}`;

  // Both servers stay up; the single-agent read takes turns on them BENCH_ROUNDS times, so that both meet
  // the same conditions, and the ratio is the median of the rounds.
  const app = await startServer('app');
  // The same API with the request log off: the log's cost on the read is the ratio of the two.
  const unlogged = await startServer('app', { REQUEST_LOG: 'false' });
  const baseline = await startServer('baseline');
  await load('warm-up', app.port, token, randomAgent);
  await load('warm-up', unlogged.port, token, randomAgent);
  await load('warm-up', baseline.port, token, randomAgent);
  const rounds: { api: Figures; unlogged: Figures; bare: Figures }[] = [];
  for (let i = 1; i <= ROUNDS; i++) {
    const api = await load(`API GET /api/v1/agents/{uuid}, round ${i}`, app.port, token, randomAgent);
    const off = await load(`same, request log off, round ${i}`, unlogged.port, token, randomAgent);
    const bare = await load(`bare Express + pg, same read, round ${i}`, baseline.port, token, randomAgent);
    rounds.push({ api, unlogged: off, bare });
  }
  await stopServer(unlogged.child);
  const figures: Figures[] = rounds.flatMap((r) => [r.api, r.unlogged, r.bare]);
  figures.push(
    await load('API GET /api/v1/agents?per_page=20', app.port, token, () => '/api/v1/agents?per_page=20'),
  );
  // The floor of the shared request pipeline (tenant, token, rate limit, envelope) with one small query.
  figures.push(
    await load(
      'API GET /api/v1/memorize/default (reference)',
      app.port,
      token,
      () => '/api/v1/memorize/default',
    ),
  );
  await stopServer(app.child);
  await stopServer(baseline.child);

  process.stdout.write(
    `\nmachine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
      `node ${process.version}, load average ${os.loadavg()[0].toFixed(1)}; ${CONNECTIONS} connections, ` +
      `${DURATION} s per run\n\n`,
  );
  for (const f of figures)
    process.stdout.write(
      `${f.label.padEnd(50)} ${String(f.rps).padStart(7)} req/s   p50 ${f.p50} ms   p99 ${f.p99} ms` +
        (f.non2xx || f.errors ? `   (non-2xx ${f.non2xx}, errors ${f.errors})` : '') +
        '\n',
    );
  const ratios = rounds.map((r) => r.api.rps / r.bare.rps).sort((a, b) => a - b);
  process.stdout.write(
    `\nsingle-agent read: API / bare handler = ${(ratios[Math.floor(ratios.length / 2)] * 100).toFixed(1)}% ` +
      `(median of ${ROUNDS} rounds: ${ratios.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')}; ` +
      `target 70% or more)\n`,
  );
  const logged = rounds.map((r) => r.api.rps / r.unlogged.rps).sort((a, b) => a - b);
  process.stdout.write(
    `request log: read throughput with / without = ${(logged[Math.floor(logged.length / 2)] * 100).toFixed(1)}% ` +
      `(median of ${ROUNDS} rounds: ${logged.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')}; ` +
      `target 97% or more)\n`,
  );

  if (process.env.BENCH_KEEP_DB) {
    process.stdout.write(`kept database ${env.DATABASE_URL}\n`);
    return;
  }
  const db = new Client({ connectionString: adminUrl });
  await db.connect();
  await db.query(`DROP DATABASE IF EXISTS cap_bench_${run} WITH (FORCE)`);
  await db.end();
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
