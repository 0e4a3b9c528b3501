import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { migrate } from '@/database/data-source';
import { twilioLine } from '../test/factories/twilio.factory';
import type { TestTenant } from '../test/factories/workspace.factory';
import { ApiProcess, startApiProcess } from '../test/support/api-process-client';
import { dropDatabase } from '../test/support/isolated-database';
import { frame, MediaClient } from '../test/support/media-client';
import { TWILIO_SID, TWILIO_TOKEN, TwilioServer } from '../test/support/twilio-server';
import {
  ChatRecord,
  GOOD_CLOUD,
  SELF_HOSTED_CPU,
  STREAMING,
  SttRecord,
  VoiceProfile,
  VoiceProviders,
} from '../test/support/voice-providers';
import { CorpusEntry, VoiceCorpus } from '../test/support/voice-providers-corpus';
import { seedBenchTenant } from './seed-tenant';
import { percentile, runBench, table } from './stats';

/**
 * `npm run bench:voice-latency`: how a caller experiences the voice runtime. The API runs in its own process against
 * local OpenAI-compatible STT, model and TTS servers answering at the latencies of a profile
 * (test/support/voice-providers.ts: good cloud, self-hosted CPU); this process places Twilio calls and plays the
 * generated speech corpus (test/fixtures/voice, scripts/voice-fixtures.sh) over their Media Streams in real time,
 * 20 ms frames paced, silence between utterances, several calls at once. Measured from outside, per turn:
 * - voice-to-voice: the caller's speech end (its last voiced frame sent) → the first agent audio frame received,
 *   with where the time goes as the provider servers saw it (endpoint wait = speech end → STT request);
 * - false cut-ins: a question with a mid-sentence pause answered before its second half (agent audio starting
 *   before the caller finished, or the first phrase stored as a turn of its own);
 * - backchannels ("uh-huh") played over the agent's reply that make it stop (a `clear`);
 * - interruptions ("wait, stop...") played over the agent's reply: caught (`clear`) and how fast;
 * - spurious turns: pink noise and babble alone making an STT or model request, or an agent reply.
 * Each configuration (an agent's `settings.voice`) runs against each profile, the figures printed side by side with
 * the goals. BENCH_CONFIGS picks configurations (default both): `fixed`, the behaviour before smart turn-taking (700 ms
 * of silence ends a turn, any speech over the agent cuts it, each phrase synthesised whole before it plays), and
 * `smart`, the defaults (smart endpointing with speculative turns, interruptions judged by their words, streamed
 * speech); a configuration the API refuses is left out with a note. BENCH_PROFILES picks profiles (`good`,
 * `self-hosted`, `streaming`; default all): `streaming` is the good cloud with streaming speech to text (the realtime
 * server hears the corpus as it is streamed: words every 100 ms of audio, final words 150 ms after a commit), its
 * agents run with `settings.voice.stt_mode: "realtime"`; its STT request is the commit, its STT answer the final
 * words (a turn may start before them, on the words heard so far). BENCH_DETAIL=1 also lists every turn
 * (voice-to-voice = its steps, ms).
 */

interface Configuration {
  name: string;
  /** Merged into the agent's `settings.voice`. */
  voice: Record<string, unknown>;
}
const CONFIGURATIONS: Configuration[] = [
  {
    name: 'fixed',
    voice: { endpointing: { mode: 'fixed' }, interruption: { min_speech_ms: 0 }, stream_speech: false },
  },
  { name: 'smart', voice: {} },
];
const PROFILES = [GOOD_CLOUD, SELF_HOSTED_CPU, STREAMING];
const chosen = (list: string | undefined, all: string[]) =>
  (list ? list.split(',').map((s) => s.trim()) : all).filter((n) => {
    if (all.includes(n)) return true;
    throw new Error(`unknown ${n}: one of ${all.join(', ')}`);
  });
const configs = chosen(
  process.env.BENCH_CONFIGS,
  CONFIGURATIONS.map((c) => c.name),
).map((n) => CONFIGURATIONS.find((c) => c.name === n)!);
const profiles = chosen(
  process.env.BENCH_PROFILES,
  PROFILES.map((p) => p.name.split(' ')[0]),
).map((n) => PROFILES.find((p) => p.name.startsWith(n))!);
const DETAIL = process.env.BENCH_DETAIL === '1';
const VOICE = VoiceCorpus.load();

/** A line is settled once no agent audio and no provider work of it happened for this long. */
const QUIET_MS = 1200;
/**
 * A stream's turn may start on the words heard at the caller's first silent frame, before the pause that commits
 * them: its model request comes up to this long before its transcription's record.
 */
const EARLY_MS = 200;
/** An overlay (backchannel, interruption) starts this long into the agent's reply. */
const OVERLAY_AFTER_MS = 1000;
/** A `clear` up to this long after an overlay ended is its doing. */
const CLEAR_WINDOW_MS = 1500;
const REPLY_TIMEOUT_MS = 12_000;
const LONG_TAIL =
  'Our store opens at nine in the morning on weekdays and at ten on Saturdays. ' +
  'On Sundays we open at noon and close at five. Is there anything else I can help you with?';

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const dbUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
dbUrl.pathname = `/cap_bench_${run}`;
const PUBLIC = 'https://voice.bench.test';
const HOST = 'bench.localhost';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const progress = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);
const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** One utterance played on a line: when its first frame, its last voiced frame and its last frame were sent. */
interface Utterance {
  line: Line;
  entry: CorpusEntry;
  startAt: number;
  speechEndAt: number;
  endAt: number;
}

/**
 * One call's Media Stream played in real time: each tick sends the next frame of what is being said, or a frame
 * of line silence; the agent's audio received is kept as talk spurts (frames less than 200 ms apart), `clear`s as
 * instants.
 */
class Line {
  readonly spurts: { start: number; end: number }[] = [];
  readonly clears: number[] = [];
  private seen = 0;
  private sent = 0;
  private speaking: { entry: CorpusEntry; next: number; u: Utterance; done: (u: Utterance) => void } | null =
    null;
  private waiters: { test: () => boolean; deadline: number; done: (ok: boolean) => void }[] = [];

  constructor(
    readonly name: string,
    readonly callId: string,
    readonly client: MediaClient,
    private readonly bench: Bench,
  ) {}

  say(entry: CorpusEntry): Promise<Utterance> {
    if (this.speaking) throw new Error(`${this.name} is already speaking`);
    return new Promise((done) => {
      const u: Utterance = { line: this, entry, startAt: 0, speechEndAt: 0, endAt: 0 };
      this.bench.utterances.push(u);
      this.speaking = { entry, next: 0, u, done };
    });
  }

  /** Resolves true once `test` holds (checked every tick), false after `timeoutMs`. */
  until(test: () => boolean, timeoutMs: number): Promise<boolean> {
    return new Promise((done) => this.waiters.push({ test, deadline: performance.now() + timeoutMs, done }));
  }

  pause(ms: number): Promise<boolean> {
    const at = performance.now() + ms;
    return this.until(() => performance.now() >= at, ms + 1000);
  }

  /** The first agent talk spurt starting at or after `at`. */
  spurtFrom(at: number): { start: number; end: number } | undefined {
    return this.spurts.find((s) => s.start >= at);
  }

  /**
   * The agent was talking at `at`: a talk spurt started before it and lasted until at most 250 ms before it (frames
   * come paced from a busy process: a short gap in them is not the end of the reply).
   */
  talking(at: number): boolean {
    return this.spurts.some((s) => s.start <= at && s.end >= at - 250);
  }

  tick(): void {
    const { received, receivedAt } = this.client;
    for (; this.seen < received.length; this.seen++) {
      const at = receivedAt[this.seen];
      const event = received[this.seen].event;
      if (event === 'clear') this.clears.push(at);
      if (event !== 'media') continue;
      const last = this.spurts[this.spurts.length - 1];
      if (last && at - last.end < 200) last.end = at;
      else this.spurts.push({ start: at, end: at });
    }
    this.sent += 1;
    const s = this.speaking;
    const payload = s ? s.entry.payloads[s.next] : frame('silence', this.sent);
    this.client.send({
      event: 'media',
      streamSid: this.client.streamSid,
      media: { track: 'inbound', chunk: String(this.sent), timestamp: String(this.sent * 20), payload },
    });
    if (s) {
      const now = performance.now();
      if (s.next === 0) s.u.startAt = now;
      if (s.next === s.entry.lastSpeechFrame) s.u.speechEndAt = now;
      s.next += 1;
      if (s.next === s.entry.payloads.length) {
        s.u.endAt = now;
        this.speaking = null;
        s.done(s.u);
      }
    }
    const now = performance.now();
    this.waiters = this.waiters.filter((w) => {
      const ok = w.test();
      if (ok || now >= w.deadline) w.done(ok);
      return !ok && now < w.deadline;
    });
  }
}

/** The providers' requests of one line: what it said, the model turns its words made, their speech. */
interface Owned {
  stt: SttRecord[];
  chat: ChatRecord[];
}

class Bench {
  readonly utterances: Utterance[] = [];
  readonly lines = new Set<Line>();
  /** Which line a chat request's reply belongs to, and its ticket (the number in its first sentence). */
  readonly tickets = new Map<ChatRecord, { ticket: number; line: Line | null }>();
  phase: 'turns' | 'talk-over' = 'turns';
  maxLagMs = 0;
  ticks = 0;
  lateTicks = 0;
  private nextTicket = 1000;
  private readonly sttLines = new WeakMap<SttRecord, Line>();
  private ticking = false;

  constructor(
    readonly api: ApiProcess,
    readonly tenant: TestTenant,
    readonly twilio: TwilioServer,
    readonly providers: VoiceProviders,
  ) {
    providers.reply = ({ json, lastUser, record }) => {
      if (json) return { content: '{}' };
      const ticket = (this.nextTicket += 1);
      // A stream's turn may start on the words heard before their commit: its transcription, and with it its
      // line, is looked up when read (settled once found).
      let line: Line | null = null;
      const of = () => {
        const stt = line ? undefined : this.sttFor(lastUser, record.at);
        if (stt) line = this.lineOf(stt);
        return line;
      };
      this.tickets.set(record, {
        ticket,
        get line() {
          return of();
        },
      });
      // A question's reply is long enough to talk over: known from its transcription, or (a stream's words not
      // committed yet) from the words.
      const said = norm(lastUser);
      const stt = this.sttFor(lastUser, record.at);
      const question = stt
        ? stt.heard.some((h) => h.entry.kind === 'question')
        : !!said &&
          VOICE.ofKind('question').some((q) => norm(q.text).startsWith(said) || said.includes(norm(q.text)));
      const lead = this.phase === 'talk-over' && question;
      return { content: `Let me check ticket ${ticket} for you. ${lead ? LONG_TAIL : 'Anything else?'}` };
    };
  }

  /**
   * The transcription a model request made at `at` was made of: the latest before it with the same words (else
   * within); a stream's commit may come up to EARLY_MS after it (a turn started on the words heard at a hush).
   */
  sttFor(text: string, at: number): SttRecord | undefined {
    const want = norm(text);
    const earlier = this.providers.stt
      .filter((s) => s.at <= at + (s.realtime ? EARLY_MS : 0) && norm(s.text) !== '')
      .reverse();
    return earlier.find((s) => norm(s.text) === want) ?? earlier.find((s) => want.includes(norm(s.text)));
  }

  /** The line that said the audio of a transcription (the latest utterance of its entry started before it). */
  lineOf(stt: SttRecord): Line | null {
    const known = this.sttLines.get(stt);
    if (known) return known;
    const entry = stt.heard[stt.heard.length - 1]?.entry;
    const u = [...this.utterances]
      .reverse()
      .find((x) => x.entry === entry && x.startAt && x.startAt <= stt.at);
    // Settled once found: an utterance that starts later cannot have made it.
    if (u) this.sttLines.set(stt, u.line);
    return u?.line ?? null;
  }

  owned(line: Line): Owned {
    return {
      stt: this.providers.stt.filter((s) => this.lineOf(s) === line),
      chat: this.providers.chat.filter((c) => this.tickets.get(c)?.line === line),
    };
  }

  /** Nothing of the line in flight at the providers and nothing heard or sent for QUIET_MS. */
  settled(line: Line, since: number): boolean {
    const now = performance.now();
    let last = since;
    const { stt, chat } = this.owned(line);
    for (const s of stt) {
      if (!s.answeredAt && !s.aborted) return false;
      last = Math.max(last, s.answeredAt);
    }
    for (const c of chat) {
      if (!c.doneAt && !c.aborted) return false;
      last = Math.max(last, c.doneAt);
      // Its sentences' speech (any request for words of its reply since it started: other calls' replies
      // may share them, which only makes the wait longer).
      for (const t of this.providers.tts)
        if (t.at >= c.at && c.reply.content?.includes(t.input)) {
          if (!t.doneAt && !t.aborted) return false;
          last = Math.max(last, t.doneAt);
        }
    }
    const spurt = line.spurts[line.spurts.length - 1];
    if (spurt) last = Math.max(last, spurt.end);
    return now - last >= QUIET_MS;
  }

  async settle(line: Line, since: number): Promise<void> {
    await line.until(() => this.settled(line, since), 30_000);
  }

  /** Plays every line in real time: one frame each per 20 ms, on an absolute schedule. */
  async tickAll(): Promise<void> {
    this.ticking = true;
    const start = performance.now();
    for (let i = 1; this.ticking; i++) {
      for (const line of this.lines) line.tick();
      const due = start + i * 20;
      const lag = performance.now() - due;
      this.maxLagMs = Math.max(this.maxLagMs, lag);
      this.ticks += 1;
      if (lag > 40) this.lateTicks += 1;
      await sleep(Math.max(0, due - performance.now()));
    }
  }

  stopTicking(): void {
    this.ticking = false;
  }

  /** Places a call on the agent's number and connects its Media Stream as Twilio would. */
  async open(agentId: string, name: string): Promise<Line> {
    const res = await this.tenant.http.post('/api/v1/call').send({ agent_uuid: agentId, to: '+14155550100' });
    if (res.status !== 201) throw new Error(`POST /call ${res.status} ${JSON.stringify(res.body)}`);
    const id = res.body.data.uuid as string;
    for (let i = 0; ; i++) {
      const dial = this.twilio.dials().find((d) => String(d.form.Twiml).includes(id));
      const got = await this.tenant.http.get(`/api/v1/calls/${id}`);
      if (dial && got.body.data?.provider_call_id) {
        const token = /name="token" value="([^"]+)"/.exec(String(dial.form.Twiml))![1];
        const client = await MediaClient.connect(
          this.api.url,
          id,
          token,
          got.body.data.provider_call_id as string,
        );
        const line = new Line(name, id, client, this);
        this.lines.add(line);
        return line;
      }
      if (i > 200) throw new Error(`call ${id} was never dialled`);
      await sleep(50);
    }
  }

  async close(line: Line): Promise<void> {
    line.client.stop();
    this.lines.delete(line);
    await sleep(50);
    line.client.close();
  }

  async customerMessages(line: Line): Promise<string[]> {
    const res = await this.tenant.http.get(`/api/v1/conversations/${line.callId}/messages?per_page=100`);
    const items = (res.body.data?.items ?? []) as { sender: string; content: string }[];
    return items.filter((m) => m.sender === 'customer').map((m) => m.content);
  }
}

/** A turn to measure. */
interface Turn {
  u: Utterance;
}

/** Asks each question, waiting for the line to settle after each. */
async function ask(bench: Bench, line: Line, entries: CorpusEntry[], turns: Turn[]): Promise<void> {
  await line.pause(600);
  for (const entry of entries) {
    const u = await line.say(entry);
    turns.push({ u });
    await bench.settle(line, u.endAt);
    await line.pause(300);
  }
}

/** Asks a lead-in question whose answer is long, and plays an overlay into the answer. */
async function talkOver(
  bench: Bench,
  line: Line,
  pairs: [CorpusEntry, CorpusEntry][],
  turns: Turn[],
): Promise<void> {
  await line.pause(600);
  for (const [lead, overlay] of pairs) {
    const u = await line.say(lead);
    turns.push({ u });
    if (await line.until(() => !!line.spurtFrom(u.speechEndAt), REPLY_TIMEOUT_MS)) {
      const start = line.spurtFrom(u.speechEndAt)!.start;
      await line.until(() => performance.now() >= start + OVERLAY_AFTER_MS, 5000);
      const o = await line.say(overlay);
      turns.push({ u: o });
      await bench.settle(line, o.endAt);
    } else await bench.settle(line, u.endAt);
    await line.pause(300);
  }
}

async function noise(bench: Bench, line: Line, entries: CorpusEntry[], turns: Turn[]): Promise<void> {
  await line.pause(1000);
  for (const entry of entries) {
    turns.push({ u: await line.say(entry) });
    await line.pause(3000);
  }
  await bench.settle(line, performance.now());
}

/** Splits a list into `n` lists, round robin. */
const deal = <T>(list: T[], n: number): T[][] =>
  Array.from({ length: n }, (_, k) => list.filter((_, i) => i % n === k));

interface CellResult {
  v2v: number[];
  phases: Record<string, number[]>;
  cutIns: number;
  paused: number;
  partialStt: number;
  backchannelClears: number;
  backchannels: number;
  caught: number;
  interruptions: number;
  clearDelays: number[];
  /** Interruption start → the agent's audio stopped (its last frame received, or the clear before it). */
  stopDelays: number[];
  /** Backchannels during which the agent's audio paused (held while judged), then went on without a clear. */
  backchannelPauses: number;
  /** Per turn: STT answer → model request, plus first TTS byte (last, for whole phrases) → first frame received. */
  overhead: number[];
  noiseStt: number;
  noiseChat: number;
  noiseReplies: number;
  noiseClips: number;
  detail: string[];
}

const PHASES = [
  'endpoint wait (speech end → STT request)',
  'STT (server)',
  'STT answer → model request',
  'model request → first token',
  'first token → first TTS request',
  'TTS request → first byte',
  'TTS request → last byte',
  'first TTS byte → first frame received',
  'last TTS byte → first frame received',
];

async function runCell(
  bench: Bench,
  agentId: string,
  profile: VoiceProfile,
  streamed: boolean,
): Promise<CellResult> {
  const providers = bench.providers;
  const corpus = VOICE;
  providers.profile = profile;
  providers.reset();
  bench.tickets.clear();
  bench.utterances.length = 0;
  const questions = corpus.ofKind('question');
  const paused = corpus.ofKind('paused');
  const backchannels = corpus.ofKind('backchannel');
  const interruptions = corpus.ofKind('interruption');
  const questionTurns: Turn[] = [];
  const pausedTurns: Turn[] = [];
  const noiseTurns: Turn[] = [];
  const overTurns: Turn[] = [];

  // Turns: questions, paused questions and noise, each list dealt over a few calls played at once.
  bench.phase = 'turns';
  const qLines = await Promise.all([0, 1, 2, 3].map((i) => bench.open(agentId, `questions-${i}`)));
  const pLines = await Promise.all([0, 1, 2, 3].map((i) => bench.open(agentId, `paused-${i}`)));
  const nLine = await bench.open(agentId, 'noise');
  await Promise.all([
    ...deal(questions, qLines.length).map((list, i) => ask(bench, qLines[i], list, questionTurns)),
    ...deal(paused, pLines.length).map((list, i) => ask(bench, pLines[i], list, pausedTurns)),
    noise(bench, nLine, corpus.ofKind('noise'), noiseTurns),
  ]);
  const stored = new Map<Line, string[]>();
  for (const line of pLines) stored.set(line, await bench.customerMessages(line));
  await Promise.all([...qLines, ...pLines, nLine].map((l) => bench.close(l)));

  // Talking over the agent: a question answered at length, a backchannel or an interruption into the answer.
  // The same question is asked on two calls at different times (each call takes its own order).
  bench.phase = 'talk-over';
  const overlays = [...backchannels, ...interruptions];
  const oLines = await Promise.all(
    Array.from({ length: Math.ceil(overlays.length / 2) }, (_, k) => bench.open(agentId, `over-${k}`)),
  );
  await Promise.all(
    deal(overlays, oLines.length).map((list, k) => {
      // Calls past the end of the questions take them again in reverse order, so that no question is said on
      // two calls at once.
      const again = Math.floor((k * list.length) / questions.length) % 2 === 1;
      const pairs = list.map((o, i): [CorpusEntry, CorpusEntry] => [
        questions[(k * list.length + (again ? list.length - 1 - i : i)) % questions.length],
        o,
      ]);
      return talkOver(bench, oLines[k], pairs, overTurns);
    }),
  );
  await Promise.all(oLines.map((l) => bench.close(l)));

  // Voice to voice, over the questions of both phases, and where the time went.
  const result: CellResult = {
    v2v: [],
    phases: Object.fromEntries(PHASES.map((p) => [p, []])),
    cutIns: 0,
    paused: pausedTurns.length,
    partialStt: 0,
    backchannelClears: 0,
    backchannels: 0,
    caught: 0,
    interruptions: 0,
    clearDelays: [],
    stopDelays: [],
    backchannelPauses: 0,
    overhead: [],
    noiseStt: 0,
    noiseChat: 0,
    noiseReplies: 0,
    noiseClips: noiseTurns.length,
    detail: [],
  };
  const f = (ms: number | undefined) => (ms === undefined ? '-' : ms.toFixed(0));
  for (const { u } of [...questionTurns, ...overTurns.filter((t) => t.u.entry.kind === 'question')]) {
    const stt = providers.stt.find(
      (s) => s.at >= u.startAt && norm(s.text) === norm(u.entry.text) && bench.lineOf(s) === u.line,
    );
    // A stream's turn may start on the words heard at the commit, before its final words.
    const chat =
      stt &&
      providers.chat.find(
        (c) =>
          c.at >= (stt.realtime ? stt.at - EARLY_MS : stt.answeredAt) &&
          !c.aborted &&
          bench.sttFor(c.lastUser, c.at) === stt,
      );
    const ticket = chat && bench.tickets.get(chat)?.ticket;
    const tts = ticket ? providers.tts.find((t) => t.input.includes(`ticket ${ticket} `)) : undefined;
    // No reply can be heard before its speech was asked for: audio before that is an earlier reply's.
    const reply = u.line.spurtFrom(Math.max(u.speechEndAt, tts?.at ?? 0));
    const v2v = reply ? reply.start - u.speechEndAt : undefined;
    if (v2v !== undefined) result.v2v.push(v2v);
    const steps = [
      stt && stt.at - u.speechEndAt,
      stt && stt.answeredAt - stt.at,
      stt && chat && chat.at - stt.answeredAt,
      chat && chat.firstTokenAt - chat.at,
      chat && tts && tts.at - chat.firstTokenAt,
      tts && tts.firstByteAt - tts.at,
      tts && tts.doneAt - tts.at,
      tts && reply && reply.start - tts.firstByteAt,
      tts && reply && reply.start - tts.doneAt,
    ];
    steps.forEach((ms, i) => ms !== undefined && result.phases[PHASES[i]].push(ms));
    if (stt && chat && tts && reply) {
      // The words a turn started on: the final ones, or those heard at the commit (or before it, at a hush).
      const wordsAt = stt.realtime && chat.at < stt.answeredAt ? Math.min(stt.at, chat.at) : stt.answeredAt;
      result.overhead.push(chat.at - wordsAt + reply.start - (streamed ? tts.firstByteAt : tts.doneAt));
    }
    result.detail.push(
      `${u.line.name} ${u.entry.id}: voice-to-voice ${f(v2v)} ms = ${steps.map(f).join(' + ')} (${u.entry.text})`,
    );
  }

  // False cut-ins: agent audio before the caller finished, or the first phrase stored as a turn of its own.
  for (const { u } of pausedTurns) {
    const full = norm(u.entry.text);
    const early = u.line.spurts.some((s) => s.start >= u.startAt && s.start < u.endAt);
    const split = (stored.get(u.line) ?? []).some(
      (m) => norm(m) && norm(m) !== full && full.startsWith(norm(m)),
    );
    const partial = providers.stt.filter(
      (s) => bench.lineOf(s) === u.line && s.heard.some((h) => h.entry === u.entry) && norm(s.text) !== full,
    );
    result.partialStt += partial.length;
    if (early || split) result.cutIns += 1;
    result.detail.push(
      `${u.line.name} ${u.entry.id}: ${early || split ? 'CUT IN' : 'waited'}${early ? ', agent audio before the end' : ''}${
        split ? ', first phrase stored alone' : ''
      }; partial transcriptions: ${partial.map((s) => JSON.stringify(s.text)).join(', ') || 'none'}`,
    );
  }

  for (const { u } of overTurns.filter((t) => t.u.entry.kind !== 'question')) {
    const overAgent = u.line.talking(u.startAt);
    const clear = u.line.clears.find((c) => c >= u.startAt && c <= u.endAt + CLEAR_WINDOW_MS);
    const kind = u.entry.kind;
    result.detail.push(
      `${u.line.name} ${u.entry.id}: ${kind}${overAgent ? '' : ' (the agent had already stopped)'}: ${
        clear === undefined ? 'no clear' : `clear after ${f(clear - u.startAt)} ms`
      }`,
    );
    if (!overAgent) continue;
    // The agent's talk spurt under way when the overlay started, and when its audio stopped.
    const live = u.line.spurts.find((sp) => sp.start <= u.startAt && sp.end >= u.startAt - 250);
    const stopped = live && Math.min(live.end, clear ?? Infinity);
    if (kind === 'backchannel') {
      result.backchannels += 1;
      if (clear !== undefined) result.backchannelClears += 1;
      else if (live && live.end < u.endAt + CLEAR_WINDOW_MS && u.line.spurtFrom(live.end + 1))
        result.backchannelPauses += 1;
    } else {
      result.interruptions += 1;
      if (clear !== undefined) {
        result.caught += 1;
        result.clearDelays.push(clear - u.startAt);
        if (stopped !== undefined) result.stopDelays.push(Math.max(0, stopped - u.startAt));
      }
    }
  }

  // A stream hears all the audio: its commits count only when they said something.
  const noiseStt = providers.stt.filter(
    (s) => s.heard.some((h) => h.entry.kind === 'noise') && (!s.realtime || norm(s.text) !== ''),
  );
  result.noiseStt = noiseStt.length;
  result.noiseChat = providers.chat.filter((c) => bench.tickets.get(c)?.line === nLine).length;
  result.noiseReplies = nLine.spurts.length;
  result.detail.push(
    `noise: ${noiseStt.length} STT requests (${noiseStt.map((s) => `${f(s.audioMs)} ms of audio`).join(', ') || 'none'}), ${
      result.noiseChat
    } model requests, ${nLine.spurts.length} agent replies`,
  );
  return result;
}

function report(columns: { label: string; profile: VoiceProfile; r: CellResult }[]): string {
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const p = (xs: number[], q: number) => (xs.length ? percentile(sorted(xs), q).toFixed(0) : '-');
  const mark = (ok: boolean) => (ok ? ' ✓' : ' ✗');
  const goalV2v = (profile: VoiceProfile, q: number) =>
    profile === STREAMING
      ? q === 50
        ? 800
        : 1000
      : profile === GOOD_CLOUD
        ? q === 50
          ? 1200
          : 1500
        : q === 50
          ? 2600
          : undefined;
  const row = (label: string, goal: string, cell: (c: (typeof columns)[number]) => string) => [
    label,
    goal,
    ...columns.map(cell),
  ];
  const v2v = (q: number) => (c: (typeof columns)[number]) => {
    const value = c.r.v2v.length ? percentile(sorted(c.r.v2v), q) : NaN;
    const goal = goalV2v(c.profile, q);
    return `${p(c.r.v2v, q)} ms${goal === undefined || !c.r.v2v.length ? '' : mark(value <= goal)}`;
  };
  const ratio = (n: number, of: number, max: number) => `${n} / ${of}${of ? mark(n / of <= max) : ''}`;
  const rows = [
    ['', 'goal', ...columns.map((c) => c.label)],
    row('voice-to-voice p50', '≤ 1200 ms cloud, ≤ 2600 ms self-hosted, ≤ 800 ms streaming', v2v(50)),
    row('voice-to-voice p95', '≤ 1500 ms cloud, ≤ 1000 ms streaming', v2v(95)),
    row('  turns measured', '', (c) => String(c.r.v2v.length)),
    ...PHASES.map((name) => row(`  ${name}, p50`, '', (c) => `${p(c.r.phases[name], 50)} ms`)),
    row('false cut-ins (paused questions)', '≤ 1 in 10', (c) => ratio(c.r.cutIns, c.r.paused, 0.1)),
    row('  transcriptions of a part of them', '', (c) => String(c.r.partialStt)),
    row('backchannels interrupting the agent', '≤ 1 in 10', (c) =>
      ratio(c.r.backchannelClears, c.r.backchannels, 0.1),
    ),
    row(
      'interruptions caught',
      '100 %',
      (c) => `${c.r.caught} / ${c.r.interruptions}${mark(c.r.caught === c.r.interruptions)}`,
    ),
    row('  interruption → agent audio stops, p50', '≤ 500 ms', (c) => {
      const ok = c.r.stopDelays.length > 0 && percentile(sorted(c.r.stopDelays), 50) <= 500;
      return `${p(c.r.stopDelays, 50)} ms${c.r.stopDelays.length ? mark(ok) : ''}`;
    }),
    row('  interruption → clear, p50', '', (c) => `${p(c.r.clearDelays, 50)} ms`),
    row(
      '  backchannels pausing the agent (then going on)',
      '',
      (c) => `${c.r.backchannelPauses} / ${c.r.backchannels}`,
    ),
    row(
      'spurious turns under noise (STT requests)',
      '0',
      (c) => `${c.r.noiseStt} in ${c.r.noiseClips} clips${mark(c.r.noiseStt === 0)}`,
    ),
    row('  model requests / agent replies', '0', (c) => `${c.r.noiseChat} / ${c.r.noiseReplies}`),
    row('own overhead per turn, p95', '< 30 ms', (c) => {
      const ok = c.r.overhead.length > 0 && percentile(sorted(c.r.overhead), 95) < 30;
      return `${p(c.r.overhead, 95)} ms (p50 ${p(c.r.overhead, 50)})${c.r.overhead.length ? mark(ok) : ''}`;
    }),
  ];
  return table(rows);
}

async function main(): Promise<void> {
  const [providers, twilio] = await Promise.all([VoiceProviders.start(VOICE), TwilioServer.start()]);
  await migrate(dbUrl.toString());
  const db = new Client({ connectionString: dbUrl.toString() });
  await db.connect();
  const { workspaceId, token } = await seedBenchTenant(db, 'bench');
  await db.end();
  progress('database ready; starting the API');
  const api = await startApiProcess({
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl.toString(),
    REDIS_PREFIX: `cap-bench-${run}`,
    STORAGE_DIR: path.join(os.tmpdir(), `cap-bench-${run}`),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    SERVICE_DOMAIN: 'localhost',
    MAX_CONCURRENT_CALLS: '500',
    RATE_LIMIT_PER_MINUTE: '100000',
    LLM_BASE_URL: providers.url,
    STT_BASE_URL: providers.url,
    STT_REALTIME_URL: providers.realtimeUrl,
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
    http: api.http(HOST, token),
  };
  const bench = new Bench(api, tenant, twilio, providers);
  const ticking = bench.tickAll();
  const columns: { label: string; profile: VoiceProfile; r: CellResult }[] = [];
  const notes: string[] = [];
  try {
    for (const config of configs) {
      // One agent per speech-to-text mode: a streaming profile's calls stream the caller's speech.
      const agents = new Map<boolean, Promise<string>>();
      const agentFor = (realtime: boolean) => {
        if (!agents.has(realtime))
          agents.set(
            realtime,
            twilioLine(tenant, {
              name: `Voice latency ${config.name}${realtime ? ' streaming' : ''}`,
              language: 'en',
              settings: {
                voice: {
                  record: false,
                  silence_timeout_seconds: 600,
                  ...config.voice,
                  ...(realtime ? { stt_mode: 'realtime' } : {}),
                },
              },
            }).then((l) => l.agentId),
          );
        return agents.get(realtime)!;
      };
      for (const profile of profiles) {
        let agentId: string;
        try {
          agentId = await agentFor(!!profile.realtimeStt);
        } catch (err) {
          notes.push(
            `${config.name} · ${profile.name}: the API refused its settings.voice (${(err as Error).message}); column left out`,
          );
          continue;
        }
        progress(`${config.name} × ${profile.name}`);
        const r = await runCell(bench, agentId, profile, config.voice.stream_speech !== false);
        columns.push({ label: `${config.name} · ${profile.name}`, profile, r });
        if (DETAIL) process.stdout.write(`${config.name} · ${profile.name}\n  ${r.detail.join('\n  ')}\n`);
      }
    }
    const describe = (pr: VoiceProfile) =>
      `${pr.name}: STT ${
        pr.realtimeStt
          ? `streamed (settings.voice.stt_mode realtime): words every ${pr.realtimeStt.deltaEveryMs} ms of audio, final words ${pr.realtimeStt.finalMs} ms after a commit; batch after a fallback ${pr.stt.baseMs} ms + ${pr.stt.perAudioSecondMs} ms per second`
          : `${pr.stt.baseMs} ms + ${pr.stt.perAudioSecondMs} ms per second of audio`
      }, model first token ${pr.model.firstTokenMs} ms at ${pr.model.tokensPerSecond} tokens/s, TTS first byte ${pr.tts.firstByteMs} ms at ${pr.tts.realTime}× real time (${providers.msPerChar} ms of audio a character)`;
    process.stdout.write(
      [
        report(columns),
        '',
        ...profiles.map(describe),
        ...configs.map(
          (c) => `${c.name}: settings.voice ${JSON.stringify(c.voice)} (record off, silence timeout 600 s)`,
        ),
        ...notes,
        `bench pacing: ${bench.lateTicks} of ${bench.ticks} ticks more than 40 ms behind schedule, at most ${bench.maxLagMs.toFixed(0)} ms; machine: ${os.cpus().length} cores, load ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}, node ${process.version}`,
        '',
      ].join('\n'),
    );
  } finally {
    bench.stopTicking();
    await ticking;
    await api.stop();
    await Promise.all([providers.close(), twilio.close()]);
    await dropDatabase(dbUrl.toString());
  }
}

runBench(main);
