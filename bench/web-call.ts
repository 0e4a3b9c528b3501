import { ChildProcess, execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { mulaw } from 'alawmulaw';
import { Client } from 'pg';
import { migrate } from '@/database/data-source';
import { wav } from '@/modules/voice/media/audio';
import { createAgent } from '../test/factories/agent.factory';
import { twilioLine } from '../test/factories/twilio.factory';
import type { TestTenant } from '../test/factories/workspace.factory';
import { client } from '../test/setup/test-app';
import { dropDatabase } from '../test/support/isolated-database';
import { frame, MediaClient } from '../test/support/media-client';
import { TWILIO_SID, TWILIO_TOKEN, TwilioServer } from '../test/support/twilio-server';
import { GOOD_CLOUD, SELF_HOSTED_CPU, VoiceProviders } from '../test/support/voice-providers';
import { CORPUS_DIR, CorpusEntry, readWav, VoiceCorpus } from '../test/support/voice-providers-corpus';
import { pcmFrame, WebCallClient } from '../test/support/web-call-client';
import { seedBenchTenant } from './seed-tenant';
import { percentile, runBench, table } from './stats';
import type { ApiRequest, ApiStats } from './web-call-api';

/**
 * `npm run bench:web-call`: N concurrent web calls (BENCH_CALLS, default 10, 25, 50) from Node clients speaking the
 * web call protocol, beside the same turns over Twilio Media Streams in the same run. The API runs in a process of
 * its own (bench/web-call-api.ts) against local STT, model and TTS servers answering at the latencies of a profile
 * (test/support/voice-providers.ts; BENCH_PROFILE good or self-hosted, default good). Each caller plays, in real time
 * (20 ms frames on an absolute schedule, callers staggered over 2 s), BENCH_TURNS questions of the generated speech
 * corpus (test/fixtures/voice/latency: 16 kHz PCM upsampled from its files for web calls, µ-law for Twilio), each
 * after the agent's previous answer has ended. Each N runs web, Twilio, Twilio, web, each transport's two halves
 * pooled, so that neither transport alone meets the machine's drift. Printed per N and transport: voice-to-voice p50/p95 (the caller's
 * last voiced frame sent → the first frame of the answer received), the API process's CPU per call (% of one core)
 * and its agent frames sent more than 40 ms behind their schedule.
 */
const SIZES = (process.env.BENCH_CALLS ?? '10,25,50').split(',').map(Number);
const TURNS = Number(process.env.BENCH_TURNS ?? 3);
/**
 * The API process on the last core, this process (every caller and the STT, model and TTS stand-ins) on the others,
 * so that the callers' own pacing does not wait on the API's work nor the API on theirs (PostgreSQL and Redis stay
 * where the system puts them). On with 2 cores or more and `taskset`; BENCH_PIN=0 leaves both where they are.
 */
const PIN = process.env.BENCH_PIN !== '0' && os.cpus().length >= 2 && hasTaskset();

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Puts the API process (`pid`) on the last core and this process on the others (see PIN). */
function pinCores(pid: number): void {
  const last = os.cpus().length - 1;
  execFileSync('taskset', ['-a', '-cp', String(last), String(pid)], { stdio: 'ignore' });
  execFileSync('taskset', ['-a', '-cp', `0-${last - 1}`, String(process.pid)], { stdio: 'ignore' });
}
const PROFILE = process.env.BENCH_PROFILE === 'self-hosted' ? SELF_HOSTED_CPU : GOOD_CLOUD;
const REPLY = 'Let me check that for you. Is there anything else I can help you with today?';
/** An answer has ended once no frame of it came for this long. */
const ENDED_MS = 400;
const REPLY_TIMEOUT_MS = 15_000;
const STAGGER_MS = 2000;

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const dbUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
dbUrl.pathname = `/cap_bench_${run}`;
const PUBLIC = 'https://voice.bench.test';
const HOST = 'bench.localhost';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const progress = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);

type Transport = 'web' | 'twilio';

/** A corpus question ready for both transports: its frames, and the last one with speech in it. */
interface Question {
  entry: CorpusEntry;
  twilio: string[];
  web: Buffer[];
}

/** A question's original 8 kHz samples, upsampled to 16 kHz PCM frames (linear interpolation). */
function webFrames(entry: CorpusEntry): Buffer[] {
  const wav = readWav(fs.readFileSync(path.join(CORPUS_DIR, entry.file)))!;
  const frames: Buffer[] = [];
  for (let f = 0; f < entry.payloads.length; f++) {
    const out = Buffer.alloc(640);
    for (let i = 0; i < 320; i++) {
      const x = (f * 320 + i) / 2;
      const j = Math.floor(x);
      const a = wav.samples[j] ?? 0;
      const b = wav.samples[j + 1] ?? a;
      out.writeInt16LE(Math.round(a + (b - a) * (x - j)), i * 2);
    }
    frames.push(out);
  }
  return frames;
}

/**
 * One caller on one call, played frame by frame: silence until its start, then each question, waiting for the
 * agent's answer to end before the next. The agent's audio is kept as arrival times; each question's
 * voice-to-voice is its last voiced frame sent → the first answer frame received after it.
 */
class Caller {
  readonly v2v: number[] = [];
  private sent = 0;
  private turn = 0;
  private next = 0;
  private speechEndAt = 0;
  /** Sending a question's frames (`playing`), waiting for its answer, or done. */
  private state: 'waiting' | 'playing' | 'answering' | 'done' = 'waiting';
  private startAt: number;

  constructor(
    readonly transport: Transport,
    private readonly questions: Question[],
    private readonly send: (frame: string | Buffer | null, index: number) => void,
    private readonly agentFrames: () => number[],
    offsetMs: number,
  ) {
    this.startAt = performance.now() + offsetMs;
  }

  get done(): boolean {
    return this.state === 'done';
  }

  tick(now: number): void {
    const q = this.questions[this.turn % this.questions.length];
    if (this.state === 'waiting' && now >= this.startAt) this.state = 'playing';
    if (this.state !== 'playing') {
      this.send(null, this.sent++);
      if (this.state === 'answering') this.answered(now);
      return;
    }
    this.send(this.transport === 'web' ? q.web[this.next] : q.twilio[this.next], this.sent++);
    if (this.next === q.entry.lastSpeechFrame) this.speechEndAt = performance.now();
    this.next += 1;
    if (this.next === q.twilio.length) {
      this.next = 0;
      this.state = 'answering';
    }
  }

  /** Once the answer has ended (or never came), the next question follows. */
  private answered(now: number): void {
    const frames = this.agentFrames().filter((t) => t >= this.speechEndAt);
    const last = frames[frames.length - 1];
    const over = frames.length > 0 && now - last >= ENDED_MS;
    if (!over && now - this.speechEndAt < REPLY_TIMEOUT_MS) return;
    if (frames.length) this.v2v.push(frames[0] - this.speechEndAt);
    this.turn += 1;
    this.state = this.turn >= TURNS ? 'done' : 'playing';
  }
}

/** The API process: forked under ts-node, asked for its counters over IPC. */
class ApiChild {
  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(env: Record<string, string>): Promise<ApiChild> {
    const root = path.resolve(__dirname, '..');
    const child = fork(path.join(__dirname, 'web-call-api.ts'), [], {
      cwd: root,
      env: { ...process.env, ...env, TS_NODE_TRANSPILE_ONLY: 'true' },
      execArgv: ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const { port } = await new Promise<{ port: number }>((resolve, reject) => {
      child.once('message', (m: { port: number }) => resolve(m));
      child.once('exit', (code) => reject(new Error(`api process exited with ${code}`)));
    });
    if (PIN) pinCores(child.pid!);
    return new ApiChild(child, `https://127.0.0.1:${port}`);
  }

  stats(): Promise<ApiStats> {
    return new Promise((resolve) => {
      this.child.once('message', (m: ApiStats) => resolve(m));
      this.child.send({ type: 'stats' } satisfies ApiRequest);
    });
  }

  async stop(): Promise<void> {
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.send({ type: 'stop' } satisfies ApiRequest);
    await exited;
  }
}

interface Phase {
  n: number;
  transport: Transport;
  v2v: number[];
  /** The STT stand-in's own time per request (request received → answered): the bench's work, not the API's. */
  stt: number[];
  turns: number;
  cpuPerCall: number;
  framesSent: number;
  framesLate: number;
  rssMiB: number;
  tickLag: number;
}

/**
 * The corpus recogniser for both transports: web calls send the corpus upsampled to 16 kHz, whose even samples are
 * the original ones, so the audio a web call transcribes is heard at 8 kHz through the line's µ-law and found by
 * its fingerprints as a Twilio call's is (the envelope match would cost the bench's own event loop far more).
 */
function hearWebAsLine(corpus: VoiceCorpus): void {
  const recognize = corpus.recognize.bind(corpus);
  corpus.recognize = (file: Buffer) => {
    const audio = readWav(file);
    if (audio?.rate !== 16000) return recognize(file);
    const half = new Int16Array(audio.samples.length >> 1);
    for (let i = 0; i < half.length; i++) half[i] = audio.samples[i * 2];
    const heard = recognize(wav(mulaw.decode(mulaw.encode(half)), 8000));
    return { ...heard, audioMs: (audio.samples.length / 16000) * 1000 };
  };
}

async function main(): Promise<void> {
  const corpus = VoiceCorpus.load();
  hearWebAsLine(corpus);
  const questions: Question[] = corpus
    .ofKind('question')
    .map((entry) => ({ entry, twilio: entry.payloads, web: webFrames(entry) }));
  const [providers, twilio] = await Promise.all([
    VoiceProviders.start(corpus, PROFILE),
    TwilioServer.start(),
  ]);
  providers.reply = ({ json }) => ({ content: json ? '{}' : REPLY });
  await migrate(dbUrl.toString());
  const db = new Client({ connectionString: dbUrl.toString() });
  await db.connect();
  const { workspaceId, token } = await seedBenchTenant(db, 'bench');
  await db.end();
  progress('database ready; starting the API');
  const api = await ApiChild.start({
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl.toString(),
    REDIS_PREFIX: `cap-bench-${run}`,
    STORAGE_DIR: path.join(os.tmpdir(), `cap-bench-${run}`),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    SERVICE_DOMAIN: 'localhost',
    MAX_CONCURRENT_CALLS: '500',
    RATE_LIMIT_PER_MINUTE: '100000',
    WEB_CALL_MINTS_PER_MINUTE: '100000',
    WEB_CALL_CONNECTS_PER_MINUTE: '100000',
    LLM_BASE_URL: providers.url,
    STT_BASE_URL: providers.url,
    TTS_BASE_URL: providers.url,
    TWILIO_ACCOUNT_SID: TWILIO_SID,
    TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
    TWILIO_API_URL: twilio.url,
    PUBLIC_BASE_URL: PUBLIC,
  });
  const tenant: TestTenant = {
    slug: 'bench',
    workspaceId,
    host: HOST,
    token,
    tokenId: '',
    userId: '',
    http: client(api.url, HOST, token),
  };
  const voice = { language: 'en', settings: { voice: { record: false, silence_timeout_seconds: 600 } } };
  const webAgent = (await createAgent(tenant, { name: 'Web bench', ...voice })).agent_uuid as string;
  const line = await twilioLine(tenant, { name: 'Twilio bench', ...voice });

  /** Opens a call on the transport; answers how to send a frame, the agent's frame arrivals and how to hang up. */
  const open = async (transport: Transport) => {
    if (transport === 'web') {
      const res = await tenant.http.post('/api/v1/web-calls').send({ agent_uuid: webAgent });
      if (res.status !== 201) throw new Error(`POST /web-calls ${res.status} ${JSON.stringify(res.body)}`);
      const url = (res.body.data.websocket_url as string).replace(
        PUBLIC.replace('https', 'wss'),
        api.url.replace('https', 'wss'),
      );
      const c = await WebCallClient.connect(url);
      c.start();
      while (!c.events('started').length) await sleep(20);
      return {
        send: (f: string | Buffer | null, i: number) =>
          c.sendRaw((f as Buffer | null) ?? pcmFrame('silence', i)),
        frames: () => c.frames.map((f) => f.at),
        hangUp: () => c.hangUp(),
      };
    }
    const res = await tenant.http.post('/api/v1/call').send({ agent_uuid: line.agentId, to: '+14155550100' });
    if (res.status !== 201) throw new Error(`POST /call ${res.status} ${JSON.stringify(res.body)}`);
    const id = res.body.data.uuid as string;
    for (;;) {
      const dial = twilio.dials().find((d) => String(d.form.Twiml).includes(id));
      const sid = dial && (await tenant.http.get(`/api/v1/calls/${id}`)).body.data?.provider_call_id;
      if (dial && sid) {
        const c = await MediaClient.fromTwiml(api.url, String(dial.form.Twiml), id, sid as string);
        return {
          send: (f: string | Buffer | null, i: number) =>
            c.send({
              event: 'media',
              streamSid: c.streamSid,
              media: {
                track: 'inbound',
                chunk: String(i),
                payload: (f as string | null) ?? frame('silence', i),
              },
            }),
          frames: () => c.receivedAt.filter((_, k) => c.received[k].event === 'media'),
          hangUp: () => c.stop(),
        };
      }
      await sleep(50);
    }
  };

  const phases: Phase[] = [];
  try {
    // A first round warms the API (compilation, first connections, the voice activity model) and is not reported.
    // Each size runs its transports in the order web, Twilio, Twilio, web, pooled per transport: both see the same
    // drift of the machine over the size's run.
    const rounds = [{ n: 3, warm: true }, ...SIZES.map((n) => ({ n, warm: false }))];
    for (const { n, warm } of rounds)
      for (const transport of (warm
        ? ['web', 'twilio']
        : ['web', 'twilio', 'twilio', 'web']) as Transport[]) {
        progress(`${warm ? 'warm-up: ' : ''}${n} ${transport} calls`);
        const calls = await Promise.all(Array.from({ length: n }, () => open(transport)));
        const callers = calls.map(
          (c, i) =>
            new Caller(
              transport,
              questions.slice(i % questions.length).concat(questions),
              c.send,
              c.frames,
              (i * STAGGER_MS) / n,
            ),
        );
        const sttFrom = providers.stt.length;
        const before = await api.stats();
        const start = performance.now();
        let maxLag = 0;
        for (let i = 1; callers.some((c) => !c.done); i++) {
          const now = performance.now();
          for (const c of callers) c.tick(now);
          const due = start + i * 20;
          maxLag = Math.max(maxLag, performance.now() - due);
          await sleep(Math.max(0, due - performance.now()));
        }
        const wall = performance.now() - start;
        const after = await api.stats();
        for (const c of calls) c.hangUp();
        await sleep(1000);
        if (warm) continue;
        const v2v = callers.flatMap((c) => c.v2v);
        const stt = providers.stt
          .slice(sttFrom)
          .filter((r) => !r.aborted)
          .map((r) => r.answeredAt - r.at);
        const cpuPerCall = ((after.cpuMicros - before.cpuMicros) / 1000 / wall / n) * 100;
        const earlier = phases.find((ph) => ph.n === n && ph.transport === transport);
        if (earlier) {
          // The second half of the size's run for this transport: pooled with the first.
          earlier.v2v = [...earlier.v2v, ...v2v].sort((a, b) => a - b);
          earlier.stt = [...earlier.stt, ...stt].sort((a, b) => a - b);
          earlier.turns += n * TURNS;
          earlier.cpuPerCall = (earlier.cpuPerCall + cpuPerCall) / 2;
          earlier.framesSent += after.framesSent - before.framesSent;
          earlier.framesLate += after.framesLate - before.framesLate;
          earlier.rssMiB = Math.max(earlier.rssMiB, after.rss / 2 ** 20);
          earlier.tickLag = Math.max(earlier.tickLag, maxLag);
          continue;
        }
        phases.push({
          n,
          transport,
          v2v: v2v.sort((a, b) => a - b),
          stt: stt.sort((a, b) => a - b),
          turns: n * TURNS,
          cpuPerCall,
          framesSent: after.framesSent - before.framesSent,
          framesLate: after.framesLate - before.framesLate,
          rssMiB: after.rss / 2 ** 20,
          tickLag: maxLag,
        });
      }
    const p = (xs: number[], q: number) => (xs.length ? `${percentile(xs, q).toFixed(0)} ms` : '-');
    const rows = [
      [
        'calls',
        'transport',
        'answers',
        'voice-to-voice p50',
        'p95',
        'STT stand-in p50 / p95',
        'API CPU per call',
        'frames sent',
        'late',
        'API RSS',
        'bench lag',
      ],
      ...phases.map((ph) => [
        String(ph.n),
        ph.transport === 'web' ? 'web call' : 'Twilio stream',
        `${ph.v2v.length} / ${ph.turns}`,
        p(ph.v2v, 50),
        p(ph.v2v, 95),
        `${p(ph.stt, 50)} / ${p(ph.stt, 95)}`,
        `${ph.cpuPerCall.toFixed(1)} % of a core`,
        String(ph.framesSent),
        `${ph.framesLate}${ph.framesLate === 0 ? ' ✓' : ' ✗'}`,
        `${ph.rssMiB.toFixed(0)} MiB`,
        `${ph.tickLag.toFixed(0)} ms`,
      ]),
    ];
    const pr = PROFILE;
    process.stdout.write(
      [
        table(rows),
        '',
        `${pr.name}: STT ${pr.stt.baseMs} ms + ${pr.stt.perAudioSecondMs} ms per second of audio, model first token ${pr.model.firstTokenMs} ms at ${pr.model.tokensPerSecond} tokens/s, TTS first byte ${pr.tts.firstByteMs} ms at ${pr.tts.realTime}× real time`,
        `${TURNS} questions per call, callers staggered over ${STAGGER_MS} ms; late: agent frames the API sent more than 40 ms behind their schedule (goal 0); bench lag: how far the callers' own 20 ms pacing fell behind at worst (it runs the providers too)`,
        `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(
            ' ',
          )}, node ${process.version}; ${PIN ? `API process on core ${os.cpus().length - 1}, callers and stand-ins on the others` : 'processes not pinned to cores'}`,
        '',
      ].join('\n'),
    );
  } finally {
    await api.stop();
    await Promise.all([providers.close(), twilio.close()]);
    await dropDatabase(dbUrl.toString());
  }
}

runBench(main);
