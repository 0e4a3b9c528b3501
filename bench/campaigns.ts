import { ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { migrate } from '@/database/data-source';
import { dropDatabase } from '../test/support/isolated-database';
import { probe, spent } from './probe-report';
import { apiClient, stopReplica } from './https-api';
import { seedBenchTenant } from './seed-tenant';
import { percentile, runBench } from './stats';

/**
 * `npm run bench:campaigns`: one API replica (compiled, with its workers) runs a campaign of BENCH_CONTACTS (10,000)
 * sandbox contacts with answering-machine detection on: 60 % people, whose calls are answered after 200 ms and end
 * after 1 s of silence, 30 % answering machines (`0005`: detected 200 ms after the answer and hung up) and 10 %
 * that do not answer (`0003`), one attempt each, `max_concurrency` 50 (BENCH_MIX=10,0,0: people only and detection
 * off, the bench before answering-machine detection, to compare in the same conditions). Prints
 * calls placed per second, the highest number of live calls ever sampled (every 20 ms; must be 50, never more), the
 * gap between a call ending and the next call being placed (p50/p99, while tasks were waiting), and the dispatcher's
 * database time per claim (its `dispatch claim` log lines), and what the replica spent per call (CPU, SQL statements
 * and Redis commands, from bench/probe.ts), which says how many calls a second the machine can carry.
 */
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 10_000);
const CONCURRENCY = 50;

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const dbUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
dbUrl.pathname = `/cap_bench_${run}`;
const root = path.join(__dirname, '..');
const storage = path.join(os.tmpdir(), `cap-bench-${run}`);
const probeDir = path.join(os.tmpdir(), `cap-bench-probe-${run}`);
const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false, maxSockets: 64 });
const progress = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);

/** The mix of callees, by share of ten: people, answering machines, no answer (BENCH_MIX, default `6,3,1`). */
const MIX = (() => {
  const [people, machines, unanswered] = (process.env.BENCH_MIX ?? '6,3,1').split(',').map(Number);
  if (
    ![people, machines, unanswered].every((n) => Number.isInteger(n) && n >= 0) ||
    people + machines + unanswered !== 10
  )
    throw new Error(
      'BENCH_MIX: three whole shares of ten (people, machines, no answer), e.g. 6,3,1 or 10,0,0',
    );
  return { people, machines, unanswered };
})();
const AREAS = ['415', '628', '650', '510', '408', '925', '707', '831'];

/** The n-th US number ending in `four` (area code and exchange count up, so each is unique and valid). */
const ending = (four: string, n: number) => `+1${AREAS[Math.floor(n / 800)]}${200 + (n % 800)}${four}`;

/**
 * Sandbox numbers in the mix, interleaved by tens: people on numbers whose last four digits answer (never 0002-0006
 * or 0009), machines ending `0005`, no answers ending `0003`.
 */
function destinations(n: number): { people: number; machines: number; unanswered: number; phones: string[] } {
  const phones: string[] = [];
  const counts = { people: 0, machines: 0, unanswered: 0 };
  let person = 1000;
  for (let i = 0; phones.length < n; i += 1) {
    const slot = i % 10;
    if (slot < MIX.people) {
      while (['0002', '0003', '0004', '0005', '0006', '0009'].includes(String(person).slice(-4))) person += 1;
      phones.push(`+14155${String(person).padStart(6, '0')}`);
      person += 1;
      counts.people += 1;
    } else if (slot < MIX.people + MIX.machines) {
      phones.push(ending('0005', counts.machines));
      counts.machines += 1;
    } else {
      phones.push(ending('0003', counts.unanswered));
      counts.unanswered += 1;
    }
  }
  return { ...counts, phones };
}

function startServer(
  env: Record<string, string>,
  claims: number[],
): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(path.join(root, '.bench-build', 'test', 'support', 'api-process.js'), [], {
    env: { ...env, TS_NODE_BASEURL: path.join(root, '.bench-build') },
    cwd: root,
    execArgv: ['-r', 'tsconfig-paths/register', '-r', path.join(root, '.bench-build', 'bench', 'probe.js')],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const log = process.env.BENCH_SERVER_LOG ? fs.createWriteStream(process.env.BENCH_SERVER_LOG) : null;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    log?.write(`${line}\n`);
    if (!line.includes('"dispatch claim"')) return;
    const ms = (JSON.parse(line) as { claimMs?: number }).claimMs;
    if (typeof ms === 'number') claims.push(ms);
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, url: `https://127.0.0.1:${m.port}` }));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

const fmt = (sorted: number[], unit = 'ms') =>
  !sorted.length
    ? 'no samples'
    : `p50 ${percentile(sorted, 50).toFixed(1)} ${unit}, p99 ${percentile(sorted, 99).toFixed(1)} ${unit} (n=${sorted.length})`;

async function main(): Promise<void> {
  await migrate(dbUrl.toString());
  const db = new Client({ connectionString: dbUrl.toString() });
  await db.connect();
  const { token, workspaceId } = await seedBenchTenant(db, 'bench');
  fs.mkdirSync(probeDir, { recursive: true });
  const claims: number[] = [];
  const server = await startServer(
    {
      ...(process.env as Record<string, string>),
      NODE_ENV: 'production',
      DATABASE_URL: dbUrl.toString(),
      REDIS_PREFIX: `cap-bench-${run}`,
      STORAGE_DIR: storage,
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'debug',
      SERVICE_DOMAIN: 'localhost',
      SANDBOX_ANSWER_DELAY_MS: '200',
      MAX_CONCURRENT_CALLS: String(CONCURRENCY),
      BENCH_PROBE_DIR: probeDir,
    },
    claims,
  );
  const call = apiClient(agent, server.url, token);
  try {
    const agentId = (
      await call('POST', '/api/v1/agents', {
        name: 'Bench',
        settings: { voice: { silence_timeout_seconds: 1 } },
      })
    ).data.agent_uuid as string;
    const number = await call('POST', '/api/v1/phone-numbers', {
      number: '+16282000100',
      provider: 'sandbox',
    });
    await call('POST', `/api/v1/agents/${agentId}/phone-numbers`, {
      phone_number_uuid: number.data.uuid,
      channels: ['call'],
    });
    const pool = (
      await call('POST', '/api/v1/pools', { name: 'Bench pool', type: 'Parallel', max_parallel_items: 100 })
    ).data.uuid as string;
    const mix = destinations(CONTACTS);
    const phones = mix.phones;
    for (let i = 0; i < phones.length; i += 1000) {
      const batch = phones.slice(i, i + 1000).map((phone_number) => ({ name: 'Bench', phone_number }));
      const created = await call('POST', '/api/v1/contacts', { contacts: batch });
      const ids = (created.data as { uuid: string }[]).map((c) => c.uuid);
      await call('POST', `/api/v1/pools/${pool}/contacts`, { contact_uuids: ids });
    }
    const campaign = (
      await call('POST', '/api/v1/campaigns', {
        name: 'Bench',
        agent_uuid: agentId,
        pool_uuids: [pool],
        max_concurrency: CONCURRENCY,
        // One attempt each: a no-answer is not tried again, a machine is hung up on at once (hang_up).
        retry: { max_attempts: 1 },
        voicemail: { detection: MIX.machines > 0, action: 'hang_up' },
        window: {
          days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
          start_time: '00:00',
          end_time: '23:59',
        },
      })
    ).data.uuid as string;
    progress(
      `seeded ${CONTACTS} contacts: ${mix.people} people, ${mix.machines} machines, ${mix.unanswered} no answer`,
    );

    let peak = 0;
    let done = false;
    const sampler = (async () => {
      while (!done) {
        const r = await db.query(
          `SELECT count(*)::int AS n FROM calls WHERE workspace_id = $1 AND status IN ('queued', 'ringing', 'in-progress')`,
          [workspaceId],
        );
        peak = Math.max(peak, r.rows[0].n as number);
        await new Promise((r2) => setTimeout(r2, 20));
      }
    })();
    const before = await probe([server.child], probeDir);
    const began = Date.now();
    await call('POST', `/api/v1/campaigns/${campaign}/start`);
    for (;;) {
      const stats = (await call('GET', `/api/v1/campaigns/${campaign}`)).data.stats;
      const open = stats.scheduled + stats.pending + stats.queued + stats.in_progress + stats.on_hold;
      if (!open) break;
      progress(
        `completed ${stats.completed}, voicemail ${stats.voicemail}, failed ${stats.failed}, live ${stats.queued + stats.in_progress}`,
      );
      await new Promise((r) => setTimeout(r, 5000));
    }
    const seconds = (Date.now() - began) / 1000;
    const final = (await call('GET', `/api/v1/campaigns/${campaign}`)).data.stats as Record<string, number>;
    // A voicemail counted as answered: a task answered (its last outcome) whose call a machine picked up.
    const miscounted = (
      await db.query(
        `SELECT count(*)::int AS n FROM outbound_tasks t JOIN calls k ON k.workspace_id = t.workspace_id
            AND k.id = t.current_call_id
          WHERE t.workspace_id = $1 AND t.campaign_id = $2 AND k.answered_by = 'machine'
            AND (t.status = 'completed' OR t.last_outcome = 'completed')`,
        [workspaceId, campaign],
      )
    ).rows[0].n as number;
    done = true;
    await sampler;
    // The calls' evaluations and timers that were still running when the last task ended.
    await new Promise((r) => setTimeout(r, 2000));
    const after = await probe([server.child], probeDir);

    const rows = (
      await db.query(
        `SELECT extract(epoch FROM created_at) * 1000 AS c, extract(epoch FROM ended_at) * 1000 AS e FROM calls
          WHERE workspace_id = $1 AND campaign_id = $2`,
        [workspaceId, campaign],
      )
    ).rows as { c: string; e: string | null }[];
    const created = rows.map((r) => Number(r.c)).sort((a, b) => a - b);
    const ended = rows
      .filter((r) => r.e)
      .map((r) => Number(r.e))
      .sort((a, b) => a - b);
    // Each ended call frees a slot; the gap is until the next call created after it, while calls remained to place.
    const gaps: number[] = [];
    let j = 0;
    for (const e of ended) {
      while (j < created.length && created[j] < e) j += 1;
      if (j >= created.length) break;
      gaps.push(created[j] - e);
      j += 1;
    }
    gaps.sort((a, b) => a - b);
    claims.sort((a, b) => a - b);
    process.stdout.write(
      [
        `campaign:                 ${CONTACTS} contacts, ${rows.length} calls in ${seconds.toFixed(1)} s`,
        `calls placed per second:  ${(rows.length / seconds).toFixed(1)} (goal: about 50 / 1.2 s = 40)`,
        `highest live calls seen:  ${peak} (goal: exactly ${CONCURRENCY}, never more)`,
        `slot freed → next call:   ${fmt(gaps)} (goal: p99 < 500 ms)`,
        `outcomes:                 ${final.answered} answered, ${final.voicemail} voicemail, ${final.failed} not answered ` +
          `(sent: ${mix.people} people, ${mix.machines} machines, ${mix.unanswered} no answer)`,
        `voicemails as answered:   ${miscounted} (goal: 0)`,
        `dispatcher claim (DB):    ${fmt(claims)} per claim transaction`,
        spent(before, after, rows.length, 'per call (placed, answered, ended, settled, evaluated)'),
        `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load ${os.loadavg()[0].toFixed(1)}, node ${process.version}`,
      ].join('\n') + '\n',
    );
  } finally {
    await stopReplica(server.child);
    await db.end();
    agent.destroy();
    await dropDatabase(dbUrl.toString());
    fs.rmSync(storage, { recursive: true, force: true });
    fs.rmSync(probeDir, { recursive: true, force: true });
  }
}

runBench(main);
