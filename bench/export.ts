import autocannon from 'autocannon';
import { ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { v7 as uuidv7 } from 'uuid';
import { migrate } from '@/database/data-source';

/**
 * `npm run bench:export`: seeds 1,000,000 messages over 10 workspaces with COPY, then measures the message export
 * of the real API against a bare Express + pg keyset handler on the same database:
 *  (a) a sequential walk of one workspace's 100,000 messages with limit=1000 (rows/s, first and last page latency);
 *  (b) autocannon, 50 connections, each request following a cursor of a walk in progress.
 */
const WORKSPACES = Number(process.env.BENCH_WORKSPACES ?? 10);
const PER_WORKSPACE = Number(process.env.BENCH_MESSAGES_PER_WORKSPACE ?? 100_000);
const LIMIT = 1000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_DURATION_SECONDS ?? 20);
const CHANNELS = ['whatsapp', 'sms', 'chat', 'messenger', 'instagram', 'phone', 'whatsapp_call'];
const WORDS =
  'hello order shipping invoice refund please thanks delivery tomorrow address payment card help'.split(' ');

interface Tenant {
  slug: string;
  workspaceId: string;
  token: string;
}

interface Target {
  name: string;
  port: number;
  pathFor(tenant: Tenant, cursor: string | null): string;
  headersFor(tenant: Tenant): Record<string, string>;
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
const log = (line = '') => process.stdout.write(`${line}\n`);
const ms = (n: number) => `${n.toFixed(1)} ms`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function startChild(
  file: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; message: any }> {
  const child = fork(path.join(__dirname, file), [], {
    env: { ...process.env, ...env },
    execArgv: [
      '-r',
      'ts-node/register/transpile-only',
      '-r',
      'tsconfig-paths/register',
      ...(process.env.BENCH_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve({ child, message }));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

async function recreateDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();
  await migrate(url);
}

async function dropDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();
}

/** Agents, conversations and messages of every workspace, the messages spread over the last 30 days. */
async function seed(url: string, tenants: Tenant[]): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const started = Date.now();
  const end = Date.now() - 60_000;
  const span = 30 * 24 * 3600_000;
  for (const tenant of tenants) {
    const agents = Array.from({ length: 5 }, () => uuidv7());
    for (const id of agents)
      await client.query(`INSERT INTO agents (id, workspace_id, name) VALUES ($1, $2, 'Bench agent')`, [
        id,
        tenant.workspaceId,
      ]);
    const conversations = Array.from({ length: 500 }, (_, i) => ({
      id: uuidv7(),
      agent: agents[i % agents.length],
      contact: uuidv7(),
      channel: CHANNELS[i % CHANNELS.length],
    }));
    const convRows = conversations.map(
      (c) =>
        `${c.id}\t${tenant.workspaceId}\t${c.agent}\t${c.contact}\t${c.channel}\t${new Date(end - span).toISOString()}\n`,
    );
    await pipeline(
      Readable.from(convRows),
      client.query(
        copyFrom(
          'COPY conversations (id, workspace_id, agent_id, contact_id, channel, created_at) FROM STDIN',
        ),
      ),
    );
    const step = span / PER_WORKSPACE;
    function* rows(): Generator<string> {
      let chunk = '';
      for (let i = 0; i < PER_WORKSPACE; i++) {
        const c = conversations[(i * 7919) % conversations.length];
        const at = Math.floor(end - span + i * step);
        const inbound = i % 2 === 0;
        const words = Array.from({ length: 8 + (i % 12) }, (_, w) => WORDS[(i + w * 3) % WORDS.length]).join(
          ' ',
        );
        const created = new Date(at).toISOString();
        chunk +=
          `${uuidv7({ msecs: at })}\t${tenant.workspaceId}\t${c.id}\t\\N\t${c.agent}\t${c.contact}\t${c.channel}\t` +
          `${inbound ? 'inbound' : 'outbound'}\t${inbound ? 'customer' : 'agent'}\ttext\t${words}\t${created}\t${created}\n`;
        if (chunk.length > 1 << 20) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk) yield chunk;
    }
    await pipeline(
      Readable.from(rows()),
      client.query(
        copyFrom(
          `COPY messages (id, workspace_id, conversation_id, session_id, agent_id, contact_id, channel, direction,
                          sender, message_type, content, created_at, updated_at) FROM STDIN`,
        ),
      ),
    );
    process.stdout.write('.');
  }
  await client.query('VACUUM ANALYZE messages');
  await client.query('VACUUM ANALYZE conversations');
  const total = (await client.query('SELECT count(*)::int AS n FROM messages')).rows[0].n as number;
  await client.end();
  log(
    `\nseeded ${total.toLocaleString('en-US')} messages over ${tenants.length} workspaces in ${((Date.now() - started) / 1000).toFixed(1)} s (COPY)`,
  );
}

async function getPage(target: Target, tenant: Tenant, cursor: string | null) {
  const t0 = performance.now();
  // node:http rather than fetch, which may not set the Host header the tenant is read from.
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port: target.port,
        path: target.pathFor(tenant, cursor),
        headers: target.headersFor(tenant),
        agent: keepAlive,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
  const body = JSON.parse(text) as { messages: unknown[]; pagination: { next_cursor: string | null } };
  const elapsed = performance.now() - t0;
  if (status !== 200) throw new Error(`${target.name}: HTTP ${status} ${text.slice(0, 300)}`);
  return { elapsed, rows: body.messages.length, next: body.pagination.next_cursor };
}

interface WalkResult {
  rows: number;
  pages: number;
  seconds: number;
  firstMs: number;
  lastMs: number;
}

/** Walks one workspace; first and last page latency are medians of 7 repeats of those two requests. */
async function sequentialWalk(target: Target, tenant: Tenant): Promise<WalkResult> {
  let cursor: string | null = null;
  let rows = 0;
  let pages = 0;
  let lastCursor: string | null = null;
  const t0 = performance.now();
  do {
    const page = await getPage(target, tenant, cursor);
    rows += page.rows;
    pages++;
    if (page.next) lastCursor = page.next;
    cursor = page.next;
  } while (cursor);
  const seconds = (performance.now() - t0) / 1000;
  const first: number[] = [];
  const last: number[] = [];
  for (let i = 0; i < 7; i++) {
    first.push((await getPage(target, tenant, null)).elapsed);
    last.push((await getPage(target, tenant, lastCursor)).elapsed);
  }
  return { rows, pages, seconds, firstMs: median(first), lastMs: median(last) };
}

interface LoadResult {
  requests: number;
  rps: number;
  rowsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/** 50 connections; every answer's next cursor is taken up by the next request, so walks stay in progress. */
async function load(target: Target, tenants: Tenant[]): Promise<LoadResult> {
  const pending: { tenant: number; cursor: string }[] = [];
  let nextTenant = 0;
  let rows = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${target.port}`,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [
      {
        setupRequest: (req, context: any) => {
          const walk = pending.shift() ?? { tenant: nextTenant++ % tenants.length, cursor: null };
          context.tenant = walk.tenant;
          const tenant = tenants[walk.tenant];
          return { ...req, path: target.pathFor(tenant, walk.cursor), headers: target.headersFor(tenant) };
        },
        onResponse: (status, body, context: any) => {
          if (status !== 200) return;
          const match = /"next_cursor":"([^"]+)"/.exec(body.slice(-400));
          rows += (body.match(/"message_uuid"/g) ?? []).length;
          if (match) pending.push({ tenant: context.tenant, cursor: match[1] });
        },
      },
    ],
  });
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    rowsPerSecond: rows / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
  };
}

async function main(): Promise<void> {
  const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/agent_platform');
  base.pathname = '/cap_bench_export';
  const url = base.toString();
  const run = randomBytes(3).toString('hex');
  log(
    `message export benchmark: ${WORKSPACES} workspaces x ${PER_WORKSPACE.toLocaleString('en-US')} messages, limit=${LIMIT}`,
  );
  log(`node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'})`);
  await recreateDatabase(url);

  const children: ChildProcess[] = [];
  try {
    const api = await startChild('export-api-server.ts', {
      DATABASE_URL: url,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      RUN_WORKERS: 'false',
      RATE_LIMIT_PER_MINUTE: '100000000',
      REDIS_PREFIX: `cap-bench-${run}`,
      STORAGE_DIR: path.join(os.tmpdir(), `cap-bench-${run}`),
      BENCH_WORKSPACES: String(WORKSPACES),
    });
    children.push(api.child);
    const tenants = api.message.tenants as Tenant[];
    await seed(url, tenants);
    const bare = await startChild('export-bare-server.ts', { DATABASE_URL: url });
    children.push(bare.child);

    const targets: Target[] = [
      {
        name: 'API',
        port: api.message.port as number,
        pathFor: (_t, cursor) =>
          `/api/v1/analytics/messages?limit=${LIMIT}${cursor ? `&cursor=${cursor}` : ''}`,
        headersFor: (t) => ({
          host: `${t.slug}.localhost`,
          authorization: `Bearer ${t.token}`,
          'x-forwarded-proto': 'https',
        }),
      },
      {
        name: 'bare',
        port: bare.message.port as number,
        pathFor: (t, cursor) => `/export/${t.workspaceId}?limit=${LIMIT}${cursor ? `&cursor=${cursor}` : ''}`,
        headersFor: () => ({}),
      },
    ];

    // Warm both (JIT, pools, buffer cache) on another workspace before measuring.
    for (const target of targets) await sequentialWalk(target, tenants[tenants.length - 1]);

    log('\n(a) sequential walk of one workspace, limit=1000');
    const walks: Record<string, WalkResult> = {};
    for (const target of targets) {
      const w = await sequentialWalk(target, tenants[0]);
      walks[target.name] = w;
      log(
        `  ${target.name.padEnd(5)} ${w.rows.toLocaleString('en-US')} rows in ${w.pages} pages, ${w.seconds.toFixed(2)} s: ` +
          `${Math.round(w.rows / w.seconds).toLocaleString('en-US')} rows/s; first page ${ms(w.firstMs)}, ` +
          `last page ${ms(w.lastMs)} (last/first ${(w.lastMs / w.firstMs).toFixed(2)})`,
      );
    }
    log('\n(c) fixed cost per request: median of 25 next pages with limit=1');
    const fixed: Record<string, number> = {};
    for (const target of targets) {
      const one: Target = {
        ...target,
        pathFor: (t, c) => target.pathFor(t, c).replace(`limit=${LIMIT}`, 'limit=1'),
      };
      const times: number[] = [];
      const { next } = await getPage(one, tenants[0], null);
      for (let i = 0; i < 25; i++) times.push((await getPage(one, tenants[0], next)).elapsed);
      fixed[target.name] = median(times);
      log(`  ${target.name.padEnd(5)} ${ms(fixed[target.name])}`);
    }
    const seqRatio = walks.API.rows / walks.API.seconds / (walks.bare.rows / walks.bare.seconds);

    log(`\n(b) autocannon, ${CONNECTIONS} connections walking cursors, ${DURATION} s each`);
    const loads: Record<string, LoadResult> = {};
    for (const target of targets) {
      const l = await load(target, tenants);
      loads[target.name] = l;
      log(
        `  ${target.name.padEnd(5)} ${l.rps.toFixed(1)} req/s, ${Math.round(l.rowsPerSecond).toLocaleString('en-US')} rows/s, ` +
          `latency p50 ${l.p50} ms, p99 ${l.p99} ms, ${l.requests} requests, ${l.errors} errors`,
      );
    }
    const loadRatio = loads.API.rowsPerSecond / loads.bare.rowsPerSecond;

    log('\nsummary');
    log(`  sequential walk: API / bare = ${(seqRatio * 100).toFixed(1)}% (target >= 70%)`);
    log(`  autocannon:      API / bare = ${(loadRatio * 100).toFixed(1)}% (target >= 70%)`);
    log(
      `  API last page / first page = ${(walks.API.lastMs / walks.API.firstMs).toFixed(2)} (target <= 1.5)`,
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    if (process.env.BENCH_KEEP_DATABASE !== 'true') await dropDatabase(url);
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
