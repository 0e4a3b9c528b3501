import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import request from 'supertest';
import { loadConfig } from '@/config/app.config';
import { prepareRuntime, startApi } from '@/bootstrap';
import { playerStats } from '@/modules/voice/media/frame-player';
import type { TurnTiming } from '@/modules/voice/media/media-session';
import { MediaOpener } from '@/modules/voice/media/media-opener';
import { TokensService } from '@/modules/workspaces/tokens.service';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';
import { dropDatabase } from '../test/support/isolated-database';
import { LlmServer } from '../test/support/llm-server';
import { frame, MediaClient } from '../test/support/media-client';
import { SpeechServer } from '../test/support/speech-server';
import { TWILIO_SID, TWILIO_TOKEN, TwilioServer } from '../test/support/twilio-server';
import { VoiceCorpus } from '../test/support/voice-providers-corpus';
import { percentile, runBench } from './stats';

/**
 * `npm run bench:voice`: N concurrent Twilio media streams (10, 25, 50) against local STT, model and TTS servers
 * with fixed latencies (100 / 200 / 100 ms). Each stream plays, in real time, silence then TURNS utterances (a
 * recorded question of the latency corpus, 1.2 s, then 2 s of silence), starting at its own offset within that cycle
 * as independent callers would (BENCH_ALIGNED=1: all in lockstep); the service hears each turn with its voice
 * activity detector (Silero unless VAD=energy), transcribes it, streams the reply and synthesises it.
 * Printed per N: the response latency (last speech frame in → first reply frame out) p50/p95/p99 and the same minus
 * the end-of-turn silence and the three model latencies (the pipeline's own overhead), CPU% and RSS of this
 * process, and frames sent more than 40 ms behind their schedule. The API runs in this process with the clients
 * and the fake servers, so CPU and RSS include them (an upper bound for the API alone).
 */
const SIZES = (process.env.BENCH_STREAMS ?? '10,25,50').split(',').map(Number);
const TURNS = Number(process.env.BENCH_TURNS ?? 3);
const ALIGNED = process.env.BENCH_ALIGNED === '1';
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const STT_MS = 100;
const LLM_MS = 200;
const TTS_MS = 100;
const END_OF_TURN_MS = 300;
const REPLY = 'Sure, I can help you with that. Anything else today?';
/** What each caller says: "Where is my order right now?" as Media Stream payloads. */
const QUESTION = VoiceCorpus.load().byId('question-05').payloads;

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const dbUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
dbUrl.pathname = `/cap_bench_${run}`;
const PUBLIC = 'https://voice.bench.test';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const [llm, speech, twilio] = await Promise.all([
    LlmServer.start(),
    SpeechServer.start(),
    TwilioServer.start(),
  ]);
  llm.latencyMs = LLM_MS;
  llm.respond = () => ({ content: REPLY });
  speech.sttLatencyMs = STT_MS;
  speech.ttsLatencyMs = TTS_MS;
  const config = await prepareRuntime(
    loadConfig({
      ...process.env,
      NODE_ENV: 'production',
      PORT: '0',
      DATABASE_URL: dbUrl.toString(),
      REDIS_PREFIX: `cap-bench-${run}`,
      STORAGE_DIR: path.join(os.tmpdir(), `cap-bench-${run}`),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'silent',
      RUN_WORKERS: 'true',
      MAX_CONCURRENT_CALLS: '500',
      RATE_LIMIT_PER_MINUTE: '100000',
      LLM_BASE_URL: llm.url,
      STT_BASE_URL: speech.url,
      TTS_BASE_URL: speech.url,
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_API_URL: twilio.url,
      PUBLIC_BASE_URL: PUBLIC,
    }),
  );
  const api = await startApi(config, { host: '127.0.0.1' });
  const url = `https://127.0.0.1:${api.server.port}`;
  // Each turn's timing, from the sessions of this run's streams.
  const turnTimings: TurnTiming[] = [];
  api.app.get(MediaOpener).onTurnTiming = (t) => turnTimings.push(t);
  const lines: string[] = [];
  try {
    await api.app.get(WorkspacesService).createWorkspace('bench', 'Benchmark');
    const user = await api.app
      .get(WorkspacesService)
      .createUser('bench', { email: 'b@bench.test', role: 'admin' });
    const { token } = await api.app.get(TokensService).create('bench', { name: 'bench', user: user.id });
    const http = (method: 'get' | 'post', p: string) =>
      (method === 'get' ? request(url).get(p) : request(url).post(p))
        .disableTLSCerts()
        .set('Host', 'bench.localhost')
        .set('Authorization', `Bearer ${token}`);
    const agent = await http('post', '/api/v1/agents').send({
      name: 'Voice bench',
      settings: { voice: { end_of_turn_silence_ms: END_OF_TURN_MS, record: false } },
    });
    const agentId = agent.body.data.agent_uuid as string;
    const number = await http('post', '/api/v1/phone-numbers').send({
      number: '+16465550100',
      provider: 'twilio',
    });
    await http('post', `/api/v1/agents/${agentId}/phone-numbers`).send({
      phone_number_uuid: number.body.data.uuid,
      channels: ['call'],
    });

    // A first round of WARMUP streams is played and not reported: the first turns of a fresh process pay for
    // compilation and first connections, which a running service has behind it.
    const rounds = [
      ...(WARMUP > 0 ? [{ n: WARMUP, warm: true }] : []),
      ...SIZES.map((n) => ({ n, warm: false })),
    ];
    for (const { n, warm } of rounds) {
      speech.transcripts.push(
        ...Array.from({ length: n * TURNS * 2 }, () => 'I would like some help please'),
      );
      const ids = await Promise.all(
        Array.from({ length: n }, async () => {
          const res = await http('post', '/api/v1/call').send({ agent_uuid: agentId, to: '+14155550100' });
          if (res.status !== 201) throw new Error(`POST /call ${res.status} ${JSON.stringify(res.body)}`);
          return res.body.data.uuid as string;
        }),
      );
      const clients = await Promise.all(
        ids.map(async (id) => {
          for (;;) {
            const dial = twilio.dials().find((d) => String(d.form.Twiml).includes(id));
            const got = await http('get', `/api/v1/calls/${id}`);
            if (dial && got.body.data.provider_call_id) {
              const tokenValue = /name="token" value="([^"]+)"/.exec(String(dial.form.Twiml))![1];
              return MediaClient.connect(url, id, tokenValue, got.body.data.provider_call_id as string);
            }
            await sleep(50);
          }
        }),
      );
      turnTimings.length = 0;
      playerStats.framesLate = 0;
      playerStats.framesSent = 0;
      const cpu0 = process.cpuUsage();
      const wall0 = performance.now();
      let rssMax = 0;
      // Real-time playback: every 20 ms each stream sends its next frame (null: line silence).
      const script: (string | null)[] = [
        ...Array<null>(30).fill(null),
        ...Array.from({ length: TURNS }, () => [...QUESTION, ...Array<null>(100).fill(null)]).flat(),
      ];
      // Independent callers: each stream starts its script at its own offset, spread evenly over one turn's
      // cycle (question + 100 frames), so turns end at different instants as on a real line. BENCH_ALIGNED=1 plays
      // every stream in lockstep instead: all N turns end in the same 20 ms (a worst-case burst).
      const cycle = QUESTION.length + 100;
      const offsets = clients.map((_, j) => (ALIGNED ? 0 : Math.floor((j * cycle) / clients.length)));
      const length = script.length + (ALIGNED ? 0 : cycle);
      const start = performance.now();
      for (let i = 0; i < length; i++) {
        clients.forEach((c, j) =>
          c.send({
            event: 'media',
            streamSid: c.streamSid,
            media: {
              track: 'inbound',
              chunk: String(i),
              payload: script[i - offsets[j]] ?? frame('silence', i),
            },
          }),
        );
        rssMax = Math.max(rssMax, process.memoryUsage().rss);
        await sleep(Math.max(0, start + (i + 1) * 20 - performance.now()));
      }
      await sleep(1000);
      const cpu = process.cpuUsage(cpu0);
      const wall = performance.now() - wall0;
      const response = turnTimings.map((t) => t.firstFrameAt - t.speechEndAt).sort((a, b) => a - b);
      const overhead = response
        .map((r) => r - END_OF_TURN_MS - STT_MS - LLM_MS - TTS_MS)
        .sort((a, b) => a - b);
      const f = (xs: number[], p: number) => percentile(xs, p).toFixed(0);
      const complete = turnTimings.filter(
        (t) => t.sttSentAt && t.sttDoneAt && t.firstDeltaAt && t.firstAudioAt,
      );
      const phase = (name: string, pick: (t: (typeof complete)[number]) => number) => {
        const xs = complete.map(pick).sort((a, b) => a - b);
        return `${name} ${f(xs, 50)} / ${f(xs, 95)}`;
      };
      const phases = () =>
        [
          phase('turn -> STT sent', (t) => t.sttSentAt - t.detectedAt),
          phase('STT beyond its latency', (t) => t.sttDoneAt - t.sttSentAt - STT_MS),
          phase('transcript -> first words beyond the model', (t) => t.firstDeltaAt - t.sttDoneAt - LLM_MS),
          phase('-> first sentence', (t) => t.firstSentenceAt - t.firstDeltaAt),
          phase('TTS beyond its latency', (t) => t.firstAudioAt - t.firstSentenceAt - TTS_MS),
          phase('audio -> first frame', (t) => t.firstFrameAt - t.firstAudioAt),
        ].join(', ');
      lines.push(
        `N=${n} streams${ALIGNED ? ' in lockstep' : ''}, ${response.length} turns measured (${n * TURNS} played)`,
        `  response latency (last speech frame -> first reply frame, incl. ${END_OF_TURN_MS} ms end of turn): p50 ${f(
          response,
          50,
        )} / p95 ${f(response, 95)} / p99 ${f(response, 99)} ms`,
        `  pipeline overhead (minus end of turn and ${STT_MS}+${LLM_MS}+${TTS_MS} ms of models): p50 ${f(overhead, 50)} / p95 ${f(overhead, 95)} / p99 ${f(overhead, 99)} ms   goal: p95 < 30 ms at 50 streams`,
        `  CPU ${(((cpu.user + cpu.system) / 1000 / wall) * 100).toFixed(0)}% of one core (whole process), RSS max ${(rssMax / 2 ** 20).toFixed(0)} MiB   goal: 50 streams under one core`,
        `  frames sent ${playerStats.framesSent}, late (> 40 ms behind schedule) ${playerStats.framesLate}   goal: 0`,
        `  where the overhead goes, p50 / p95 ms: ${phases()}`,
      );
      if (warm) {
        lines.length = 0;
        process.stdout.write(`warm-up: ${n} streams, ${n * TURNS} turns played, not reported\n`);
      } else process.stdout.write(`${lines.slice(-6).join('\n')}\n`);
      for (const c of clients) c.close();
      for (const id of ids) await http('post', `/api/v1/calls/action/${id}/hangup`).send({ message: 'Bye' });
      await sleep(500);
    }
    process.stdout.write(
      `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}, node ${process.version}\n`,
    );
  } finally {
    await api.stop();
    await Promise.all([llm.close(), speech.close(), twilio.close()]);
    await dropDatabase(dbUrl.toString());
  }
}

runBench(main);
