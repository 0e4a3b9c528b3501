import { ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { migrate } from '@/database/data-source';
import { dropDatabase } from '../test/support/isolated-database';
import { apiClient, stopReplica } from './https-api';
import { seedBenchTenant } from './seed-tenant';
import { percentile, runBench } from './stats';

/**
 * `npm run bench:outbound-reads`: the reads of a large campaign. One API replica (compiled, with its workers) holds a
 * pool of BENCH_TASKS (100,000) contacts attached to a campaign; `start` creates one task per member (timed: one
 * transaction), the tasks are then spread over every status with attempts (straight in SQL, as a campaign that has
 * run for a while), and each read is asked BENCH_READS (50) times, one at a time, over HTTPS: the campaign with its
 * `stats`, the pool's member view (first page, a deep page, filtered by status, searched), and the campaign's tasks.
 * Prints p50/p99 of each beside the reference (p99 < 100 ms). The campaign's `start_at` is a day ahead, so nothing
 * is dialled while it runs. `BENCH_KEEP_DATABASE=1` keeps the database for `EXPLAIN`.
 */
const TASKS = Number(process.env.BENCH_TASKS ?? 100_000);
const READS = Number(process.env.BENCH_READS ?? 50);
const GOAL_MS = 100;

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const dbUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
dbUrl.pathname = `/cap_bench_${run}`;
const root = path.join(__dirname, '..');
const storage = path.join(os.tmpdir(), `cap-bench-${run}`);
const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false, maxSockets: 4 });
const progress = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);

function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(path.join(root, '.bench-build', 'test', 'support', 'api-process.js'), [], {
    env: { ...env, TS_NODE_BASEURL: path.join(root, '.bench-build') },
    cwd: root,
    execArgv: ['-r', 'tsconfig-paths/register'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, url: `https://127.0.0.1:${m.port}` }));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

async function main(): Promise<void> {
  await migrate(dbUrl.toString());
  const db = new Client({ connectionString: dbUrl.toString() });
  await db.connect();
  const { token, workspaceId } = await seedBenchTenant(db, 'bench');
  const server = await startServer({
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl.toString(),
    REDIS_PREFIX: `cap-bench-${run}`,
    STORAGE_DIR: storage,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '100000000',
    SERVICE_DOMAIN: 'localhost',
  });
  const call = apiClient(agent, server.url, token);
  const lines: string[] = [];
  let met = true;
  try {
    const agentId = (await call('POST', '/api/v1/agents', { name: 'Bench' })).data.agent_uuid as string;
    const number = await call('POST', '/api/v1/phone-numbers', {
      number: '+16282000100',
      provider: 'sandbox',
    });
    await call('POST', `/api/v1/agents/${agentId}/phone-numbers`, {
      phone_number_uuid: number.data.uuid,
      channels: ['call'],
    });
    const pool = (await call('POST', '/api/v1/pools', { name: 'Bench pool', type: 'FIFO' })).data
      .uuid as string;
    // Contacts and members straight in SQL: the bench is about the reads, not the imports.
    await db.query(
      `INSERT INTO contacts (id, workspace_id, name, surname, phone_number, timezone)
       SELECT gen_random_uuid(), $1, 'Contact ' || i, 'Bench', '+1415' || lpad(i::text, 7, '0'),
              CASE WHEN i % 3 = 0 THEN 'America/New_York' ELSE NULL END
         FROM generate_series(1, $2::int) i`,
      [workspaceId, TASKS],
    );
    await db.query(
      `INSERT INTO outbound_pool_members (id, workspace_id, pool_id, contact_id, priority, created_at)
       SELECT gen_random_uuid(), $1, $2, id, (seq % 10), clock_timestamp() FROM contacts WHERE workspace_id = $1`,
      [workspaceId, pool],
    );
    await db.query('ANALYZE contacts');
    await db.query('ANALYZE outbound_pool_members');
    const campaign = (
      await call('POST', '/api/v1/campaigns', {
        name: 'Bench',
        agent_uuid: agentId,
        pool_uuids: [pool],
        start_at: new Date(Date.now() + 86_400_000).toISOString(),
      })
    ).data.uuid as string;
    progress(`seeded ${TASKS} contacts in the pool`);
    const began = process.hrtime.bigint();
    await call('POST', `/api/v1/campaigns/${campaign}/start`);
    const startMs = Number(process.hrtime.bigint() - began) / 1e6;
    const made = await db.query(`SELECT count(*)::int AS n FROM outbound_tasks WHERE campaign_id = $1`, [
      campaign,
    ]);
    lines.push(`campaign start (${made.rows[0].n} tasks, one transaction): ${startMs.toFixed(0)} ms`);
    // A campaign that has run a while: tasks spread over the statuses, with attempts.
    await db.query(
      `UPDATE outbound_tasks t SET
         status = s.status, attempts = CASE WHEN s.status IN ('scheduled', 'pending') THEN 0 ELSE 1 + s.r % 3 END,
         completed_at = CASE WHEN s.status = 'completed' THEN now() END,
         failed_at = CASE WHEN s.status = 'failed' THEN now() END
         FROM (SELECT id, r, (ARRAY['completed','completed','completed','completed','failed','scheduled','scheduled',
                                     'pending','cancelled','expired'])[1 + r % 10] AS status
                 FROM (SELECT id, (random() * 1000)::int AS r FROM outbound_tasks WHERE campaign_id = $1) x) s
        WHERE t.id = s.id`,
      [campaign],
    );
    // Their attempts: the last one answered for completed tasks, busy before it and for the others.
    await db.query(
      `INSERT INTO outbound_task_attempts (id, workspace_id, task_id, number, outcome, local_day, started_at, ended_at)
       SELECT gen_random_uuid(), t.workspace_id, t.id, n,
              CASE WHEN t.status = 'completed' AND n = t.attempts THEN 'completed' ELSE 'busy' END,
              current_date, now(), now()
         FROM outbound_tasks t, generate_series(1, t.attempts) n WHERE t.campaign_id = $1`,
      [campaign],
    );
    await db.query('VACUUM ANALYZE outbound_tasks');
    await db.query('VACUUM ANALYZE outbound_task_attempts');
    progress('tasks spread over their statuses');

    const reads: [string, string][] = [
      ['GET /campaigns/{uuid} (with stats)', `/api/v1/campaigns/${campaign}`],
      ['GET /pools/{uuid}/contacts, first page', `/api/v1/pools/${pool}/contacts?per_page=50`],
      [
        'GET /pools/{uuid}/contacts, a middle page',
        `/api/v1/pools/${pool}/contacts?per_page=50&page=${Math.max(1, Math.floor(TASKS / 100))}`,
      ],
      [
        'GET /pools/{uuid}/contacts?status=Failed',
        `/api/v1/pools/${pool}/contacts?per_page=50&status=Failed`,
      ],
      [
        'GET /pools/{uuid}/contacts?search=Contact 4242',
        `/api/v1/pools/${pool}/contacts?search=Contact%204242`,
      ],
      ['GET /tasks?campaign_uuid=…', `/api/v1/tasks?per_page=50&campaign_uuid=${campaign}`],
      [
        'GET /tasks?campaign_uuid=…&status=failed',
        `/api/v1/tasks?per_page=50&campaign_uuid=${campaign}&status=failed`,
      ],
    ];
    for (const [name, p] of reads) {
      await call('GET', p); // warm
      const ms: number[] = [];
      let total = 0;
      for (let i = 0; i < READS; i += 1) {
        const t = process.hrtime.bigint();
        const body = await call('GET', p);
        ms.push(Number(process.hrtime.bigint() - t) / 1e6);
        total = (body.data?.pagination?.total ?? body.data?.stats?.tasks ?? 0) as number;
      }
      ms.sort((a, b) => a - b);
      const p99 = percentile(ms, 99);
      met &&= p99 < GOAL_MS;
      lines.push(
        `${`${name}:`.padEnd(46)} p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms ` +
          `(n=${READS}, ${total} rows counted)  reference p99 < ${GOAL_MS} ms: ${p99 < GOAL_MS ? 'met' : 'NOT met'}`,
      );
    }
  } finally {
    await stopReplica(server.child);
    await db.end();
    agent.destroy();
    if (process.env.BENCH_KEEP_DATABASE) process.stderr.write(`database kept: ${dbUrl.toString()}\n`);
    else await dropDatabase(dbUrl.toString());
    fs.rmSync(storage, { recursive: true, force: true });
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stdout.write(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.split(' ').slice(0, 2).join(' ')}), ` +
      `load ${os.loadavg()[0].toFixed(1)}, node ${process.version}; all reads ${met ? 'met' : 'NOT met'}\n`,
  );
}

runBench(main);
