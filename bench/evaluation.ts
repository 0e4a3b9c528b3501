import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { dropDatabase } from '../test/support/isolated-database';
import { percentile, runBench } from './stats';
import { loadConfig } from '@/config/app.config';
import { prepareRuntime, startApi } from '@/bootstrap';
import { AgentsService } from '@/modules/agents/agents.service';
import { EvaluationSettingsService } from '@/modules/agents/settings/evaluation-settings.service';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import { ConversationTurnsService } from '@/modules/runtime/public';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';
import { LlmServer } from '../test/support/llm-server';

/**
 * `npm run bench:evaluation`: 1,000 chat sessions, each with one customer turn (the reply through a local
 * OpenAI-compatible model answering after 50 ms), end by idle timeout (3 s) within about a minute; reports the time
 * from each session's end (last activity + timeout) to its stored evaluation records (p50, p99) and the total.
 */
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);
const LATENCY_MS = Number(process.env.BENCH_LLM_LATENCY_MS ?? 50);
const TIMEOUT_MINUTES = 0.05; // 3 seconds
const SPREAD_MS = Number(process.env.BENCH_SPREAD_MS ?? 30_000); // turns are spread over this window
const CONCURRENCY = 20;

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const dbUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
dbUrl.pathname = `/cap_bench_${run}`;

async function main(): Promise<void> {
  const llm = await LlmServer.start();
  llm.latencyMs = LATENCY_MS;
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
      LLM_BASE_URL: llm.url,
      RUN_WORKERS: 'true',
    }),
  );
  const api = await startApi(config, { host: '127.0.0.1' });
  const db = new Client({ connectionString: config.database.url });
  await db.connect();
  try {
    const ws = await api.app.get(WorkspacesService).createWorkspace('bench', 'Benchmark');
    const agent = await api.app.get(AgentsService).create(ws.id, { name: 'Bench agent' } as never);
    await api.app
      .get(EvaluationSettingsService)
      .updateDefault(ws.id, { sessionization: { timeout_minutes: TIMEOUT_MINUTES } });
    const conversations = api.app.get(ConversationsService);
    const turns = api.app.get(ConversationTurnsService);

    process.stdout.write(
      `Starting ${SESSIONS} sessions over ${SPREAD_MS / 1000} s (model latency ${LATENCY_MS} ms, idle timeout 3 s)\n`,
    );
    const started = Date.now();
    let next = 0;
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= SESSIONS) return;
        const due = started + (i * SPREAD_MS) / SESSIONS;
        if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        const c = await conversations.open(ws.id, { agentId: agent.agent_uuid, channel: 'chat' });
        await turns.takeTurn(ws.id, c.id, `Hello, this is customer ${i}. Where is my order?`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const turnsDone = Date.now();

    const deadline = Date.now() + 120_000;
    for (;;) {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM sessions WHERE workspace_id = $1 AND evaluated_at IS NOT NULL`,
        [ws.id],
      );
      if (rows[0].n >= SESSIONS || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const { rows } = await db.query(
      `SELECT extract(epoch FROM (max(e.created_at) - (s.last_activity_at + s.timeout_ms * interval '1 millisecond'))) * 1000 AS lag_ms,
              extract(epoch FROM max(e.created_at)) * 1000 AS stored_ms
         FROM sessions s JOIN evaluation_records e ON e.session_id = s.id
        WHERE s.workspace_id = $1 AND s.end_reason = 'timeout'
        GROUP BY s.id, s.last_activity_at, s.timeout_ms`,
      [ws.id],
    );
    const lags = rows.map((r: { lag_ms: string }) => Number(r.lag_ms)).sort((a: number, b: number) => a - b);
    const lastStored = Math.max(...rows.map((r: { stored_ms: string }) => Number(r.stored_ms)));
    const records = await db.query(
      `SELECT status, count(*)::int AS n FROM evaluation_records WHERE workspace_id = $1 GROUP BY status`,
      [ws.id],
    );

    process.stdout.write(
      [
        `sessions evaluated:        ${lags.length} / ${SESSIONS}`,
        `records by status:         ${records.rows.map((r: { status: string; n: number }) => `${r.status}=${r.n}`).join(' ')}`,
        `model calls:               ${llm.calls.length} (replies ${llm.callsOf('reply').length}, evaluation ${llm.callsOf('evaluate').length})`,
        `turns took:                ${((turnsDone - started) / 1000).toFixed(1)} s`,
        `session end -> records:    p50 ${percentile(lags, 50).toFixed(0)} ms, p99 ${percentile(lags, 99).toFixed(0)} ms, max ${lags.at(-1)!.toFixed(0)} ms`,
        `total, first turn -> last records stored: ${((lastStored - started) / 1000).toFixed(1)} s`,
        `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
      ].join('\n') + '\n',
    );
  } finally {
    await db.end();
    await api.stop();
    await llm.close();
    await dropDatabase(dbUrl.toString());
    fs.rmSync(storage, { recursive: true, force: true });
  }
}

runBench(main);
