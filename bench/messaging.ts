import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { migrate } from '@/database/data-source';
import { dropDatabase } from '../test/support/isolated-database';
import { LlmServer } from '../test/support/llm-server';
import {
  twilioSignature,
  TwilioMessagingServer as TwilioServer,
} from '../test/support/twilio-messaging-server';
import { seedBenchTenant } from './seed-tenant';
import { probe, spent } from './probe-report';
import { startServer, stopServer } from './replicas';
import { percentile, runBench } from './stats';
import { cpuPerUnit, gcBetween, heapAfter, PassFigures, PassSide, withTracingCost } from './tracing-cost';

/**
 * `npm run bench:messaging`: two API replicas (compiled, each with its workers) share PostgreSQL and Redis. 1,000
 * signed Twilio inbound SMS over 100 conversations arrive at 100 a second, alternating replicas, against a local
 * model answering in a fixed 50 ms (it echoes the customer's text, so the order of replies can be checked) and a
 * local Twilio Messaging server receiving the replies. Prints the hook's answer time, inbound → reply received by
 * Twilio minus the model's 50 ms, lost replies and replies out of order within a conversation.
 * The replicas are warmed first, as a serving replica is: BENCH_WARMUP (300) messages from other customers at the
 * same rate, their replies awaited, then 3 s of quiet (BENCH_WARMUP=0 measures a cold start: the first seconds then
 * carry the JIT compiling the request path). BENCH_DETAIL=1 adds the figures per second of sending and the
 * statements per message. The whole pass then runs again with the replicas tracing to a local OTLP receiver, and the
 * cost of tracing is printed (BENCH_TRACING=off skips it).
 */
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1000);
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const MODEL_MS = 50;
const AUTH_TOKEN = 'bench-twilio-token';
const PUBLIC = 'https://hooks.bench.test';
const NUMBER = '+16282000200';

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false, maxSockets: 256 });

function request(
  base: string,
  method: string,
  p: string,
  body: string | undefined,
  headers: Record<string, string>,
): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request(`${base}${p}`, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          text: Buffer.concat(chunks).toString(),
          ms: performance.now() - started,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const api = (base: string, token: string, method: string, p: string, body?: unknown) => {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return request(base, method, p, payload, {
    Host: 'bench.localhost',
    Authorization: `Bearer ${token}`,
    ...(payload
      ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) }
      : {}),
  });
};

const progress = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);
const fmt = (sorted: number[]) =>
  `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms (n=${sorted.length})`;
// Ends in 1: the Twilio fake refuses a destination ending 0004 (code 21211), which would count as lost replies.
const customerOf = (i: number) => `+1415${String(200000 + i).padStart(6, '0')}1`;

async function main(tracing: Record<string, string>, side: PassSide): Promise<PassFigures> {
  const dbUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  dbUrl.pathname = `/cap_bench_${run}${side.tag}`;
  const storage = path.join(os.tmpdir(), `cap-bench-${run}${side.tag}`);
  const probeDir = path.join(os.tmpdir(), `cap-bench-probe-${run}${side.tag}`);
  const llm = await LlmServer.start();
  llm.latencyMs = MODEL_MS;
  llm.respond = (call) => {
    if (call.kind !== 'reply') return { content: JSON.stringify({ scores: [] }) };
    const last = [...call.messages].reverse().find((m) => m.role === 'user');
    return { content: `re: ${last?.content ?? ''}` };
  };
  const twilio = await TwilioServer.start();
  fs.mkdirSync(probeDir, { recursive: true });
  await migrate(dbUrl.toString());
  const db = new Client({ connectionString: dbUrl.toString() });
  await db.connect();
  const { token } = await seedBenchTenant(db, 'bench');
  await db.end();
  progress('seeded');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl.toString(),
    REDIS_PREFIX: `cap-bench-${run}${side.tag}${Object.keys(tracing).length ? '-traced' : ''}`,
    STORAGE_DIR: storage,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    SERVICE_DOMAIN: 'localhost',
    LLM_BASE_URL: llm.url,
    SANDBOX_ANSWER_DELAY_MS: '0',
    PUBLIC_BASE_URL: PUBLIC,
    TWILIO_ACCOUNT_SID: 'ACbench',
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_API_URL: twilio.url,
    BENCH_PROBE_DIR: probeDir,
    ...tracing,
  };
  const a = await startServer(env, { probe: true });
  const b = await startServer(env, { probe: true });
  progress('replicas up');
  const replicas = [a.url, b.url];
  try {
    const agentId = JSON.parse(
      (await api(a.url, token, 'POST', '/api/v1/agents', { name: 'Bench agent', status: 'ready' })).text,
    ).data.agent_uuid as string;
    const number = JSON.parse(
      (await api(a.url, token, 'POST', '/api/v1/phone-numbers', { number: NUMBER, provider: 'twilio' })).text,
    );
    await api(a.url, token, 'POST', `/api/v1/agents/${agentId}/phone-numbers`, {
      phone_number_uuid: number.data.uuid,
      channels: ['sms'],
    });

    const hookPath = '/hooks/v1/twilio/sms/inbound';
    /** A signed inbound SMS from `from` posted to replica `i % 2`. */
    const inbound = (i: number, from: string, text: string, sid: string) => {
      const params = { From: from, To: NUMBER, Body: text, MessageSid: sid, NumMedia: '0' };
      const body = new URLSearchParams(params).toString();
      return request(replicas[i % 2], 'POST', hookPath, body, {
        Host: 'hooks.localhost',
        'Content-Type': 'application/x-www-form-urlencoded',
        'Content-Length': String(Buffer.byteLength(body)),
        'X-Twilio-Signature': twilioSignature(AUTH_TOKEN, `${PUBLIC}${hookPath}`, params),
      });
    };
    /** Sends `count` messages at RATE, `send(i)` each, and waits for every hook's answer. */
    const paced = async (count: number, send: (i: number) => Promise<unknown>) => {
      const posts: Promise<unknown>[] = [];
      const t0 = performance.now();
      for (let i = 0; i < count; i++) {
        const wait = t0 + (i * 1000) / RATE - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        posts.push(send(i));
      }
      await Promise.all(posts);
      return (performance.now() - t0) / 1000;
    };
    const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
    if (WARMUP) {
      const warmCustomer = (i: number) => `+1416${String(300000 + (i % CONVERSATIONS)).padStart(6, '0')}1`;
      await paced(WARMUP, (i) => inbound(i, warmCustomer(i), `w ${i}`, `SMwarm${run}${i}`));
      while (twilio.messages.length < WARMUP) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 3000));
      twilio.messages.length = 0;
      progress('warmed up');
    }
    await side.reached('inbound');
    const before = await probe([a.child, b.child], probeDir);
    const sentAt = new Map<string, number>();
    // When each hook answered: message k+1 of a conversation "arrived after" k only if k's hook had answered
    // before k+1 was sent (otherwise the two requests raced each other to the replicas).
    const answeredAt = new Map<string, number>();
    const hookMs: number[] = [];
    // BENCH_DETAIL: the figures per second of sending, to tell the opening burst from the steady state.
    const hookBySecond = Array.from({ length: Math.ceil(MESSAGES / RATE) }, () => [] as number[]);
    const indexOf = new Map<string, number>();
    // The machine is often shared: the load when sending began is printed beside the load at the end.
    const loadAtStart = os.loadavg()[0];
    const sendSeconds = await paced(MESSAGES, (i) => {
      const from = customerOf(i % CONVERSATIONS);
      const text = `msg ${Math.floor(i / CONVERSATIONS)}`;
      sentAt.set(`${from}|re: ${text}`, performance.now());
      indexOf.set(`${from}|re: ${text}`, i);
      return inbound(i, from, text, `SMbench${run}${i}`).then((r) => {
        if (r.status !== 200) throw new Error(`hook answered ${r.status}: ${r.text}`);
        hookMs.push(r.ms);
        hookBySecond[Math.floor(i / RATE)]?.push(r.ms);
        answeredAt.set(`${from}|re: ${text}`, performance.now());
      });
    });
    progress('inbound sent');
    const deadline = Date.now() + 120_000;
    while (twilio.messages.length < MESSAGES && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    progress('replies collected');
    // Settle what is still in flight (status jobs) before the second snapshot.
    await new Promise((r) => setTimeout(r, 1000));
    const after = await probe([a.child, b.child], probeDir);

    const replyMs: number[] = [];
    const replyBySecond = hookBySecond.map(() => [] as number[]);
    const byCustomer = new Map<string, number[]>();
    for (const m of twilio.messages) {
      const t0 = sentAt.get(`${m.params.To}|${m.params.Body}`);
      if (t0 !== undefined) replyMs.push(m.at - t0 - MODEL_MS);
      const at = indexOf.get(`${m.params.To}|${m.params.Body}`);
      if (t0 !== undefined && at !== undefined)
        replyBySecond[Math.floor(at / RATE)]?.push(m.at - t0 - MODEL_MS);
      const n = Number(/^re: msg (\d+)$/.exec(m.params.Body ?? '')?.[1] ?? -1);
      byCustomer.set(m.params.To, [...(byCustomer.get(m.params.To) ?? []), n]);
    }
    // A pair (k, k+1) of one conversation counts when k's hook had answered before k+1 was sent: then k arrived
    // first and its reply must leave first. Overlapping hooks raced each other to the replicas; no order is owed.
    let outOfOrder = 0;
    let judged = 0;
    for (const [customer, seq] of byCustomer) {
      const position = new Map(seq.map((n, at) => [n, at]));
      for (let k = 0; k + 1 < MESSAGES / CONVERSATIONS; k++) {
        const answered = answeredAt.get(`${customer}|re: msg ${k}`);
        const next = sentAt.get(`${customer}|re: msg ${k + 1}`);
        const a = position.get(k);
        const b = position.get(k + 1);
        if (answered === undefined || next === undefined || a === undefined || b === undefined) continue;
        if (answered >= next) continue;
        judged++;
        if (b < a) outOfOrder++;
      }
    }
    hookMs.sort((x, y) => x - y);
    replyMs.sort((x, y) => x - y);
    const bySecond = process.env.BENCH_DETAIL
      ? hookBySecond.map((h, s) => {
          const r = replyBySecond[s].sort((x, y) => x - y);
          h.sort((x, y) => x - y);
          return `  second ${s}: hook ${h.length ? fmt(h) : '-'}; reply minus model ${r.length ? fmt(r) : '-'}`;
        })
      : [];
    const hookP99 = percentile(hookMs, 99);
    const replyP99 = percentile(replyMs, 99);
    process.stdout.write(
      [
        `inbound sent:                         ${MESSAGES} over ${CONVERSATIONS} conversations in ${sendSeconds.toFixed(1)} s (target ${RATE}/s, 2 replicas${WARMUP ? `, warmed with ${WARMUP} messages of other customers` : ', cold'})`,
        `hook answer:                          ${fmt(hookMs)}  goal p99 < 50 ms: ${hookP99 < 50 ? 'met' : 'NOT met'}`,
        `inbound -> reply sent minus model:    ${fmt(replyMs)}  goal p99 < 100 ms: ${replyP99 < 100 ? 'met' : 'NOT met'}`,
        `lost (no reply received):             ${MESSAGES - twilio.messages.length}  goal 0`,
        `out of order within a conversation:   ${outOfOrder} of ${judged} pairs whose hooks did not overlap  goal 0`,
        `model calls:                          ${llm.calls.length}`,
        ...bySecond,
        spent(before, after, MESSAGES, 'per inbound message (hook, turn, reply)'),
        `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load ${loadAtStart.toFixed(2)} at the start, ${os.loadavg()[0].toFixed(2)} at the end, node ${process.version}`,
      ].join('\n') + '\n',
    );
    return {
      p99: { 'hook answer': hookP99, 'inbound -> reply minus model': replyP99 },
      cpuMs: { 'inbound message': cpuPerUnit(before, after, MESSAGES) },
      mainCpuMs: { 'inbound message': cpuPerUnit(before, after, MESSAGES, true) },
      majorGcs: gcBetween(before, after),
      heapMb: heapAfter(after),
    };
  } finally {
    await Promise.all([stopServer(a.child), stopServer(b.child)]);
    await llm.close();
    await twilio.close();
    await dropDatabase(dbUrl.toString());
    fs.rmSync(storage, { recursive: true, force: true });
    fs.rmSync(probeDir, { recursive: true, force: true });
  }
}

// The agent's sockets are closed once every pass is done: a pass beside another shares it.
runBench(() => withTracingCost(main).finally(() => agent.destroy()));
