import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { LoadedCall } from '@/modules/calls/call-runtime.service';
import { DTMF_KEYS, pressedKeys } from '@/modules/calls/dtmf';
import { LiveTurn, TurnCancelled } from '@/modules/conversations/turn-gate';
import { voiceTurn } from '@/common/telemetry/telemetry';
import { FrameFormat, FrameStream, wav } from './audio';
import { FramePlayer } from './frame-player';
import { SentenceSplitter } from './sentences';
import type { MediaTransport } from './transport';
import { TurnDetector } from './turn-detector';
import {
  newTiming,
  SessionDeps,
  SessionTurn,
  StartTurnOptions,
  TurnOutcome,
  TurnTiming,
  VoiceSettings,
} from './media-session.types';

export * from './media-session.types';

/** Longest wait for the far end to confirm a message was played before an action that follows it. */
export const PLAYED_WAIT_CAP_MS = 15_000;
/** Keys pressed within this long of the previous one are one turn, `(pressed 1 2)`. */
export const DTMF_GAP_MS = 1_500;
/** Keys held at most: one more makes a turn of those at once. */
const DTMF_MAX_KEYS = 32;

/**
 * One call's media session on its transport (a Twilio Media Stream, a browser's WebSocket): takes the caller's PCM,
 * detects turns, runs each through STT and the turn pipeline with the model's reply streamed, synthesises it
 * sentence by sentence and plays it paced to real time in the transport's codec; speech over the agent's audio
 * (barge-in) clears it and stops the reply.
 */
export class MediaSession {
  private readonly logger = new Logger(MediaSession.name);
  private readonly detector: TurnDetector;
  private readonly player: FramePlayer;
  private turns: Promise<void> = Promise.resolve();
  private synth: Promise<void> = Promise.resolve();
  /** Bumped on barge-in: sentences of an older epoch are dropped. */
  private epoch = 0;
  private readonly marks = new Map<string, () => void>();
  /** The message whose audio is playing now (for `interrupted`). */
  private speaking: string | null = null;
  /** The turn being timed (the last one detected), until its first reply frame; only with `onTurnTiming`. */
  private timing: TurnTiming | null = null;
  /** The signals of the turns started and not over (aborted when the session closes). */
  private readonly live = new Set<AbortController>();
  /** Keys pressed and not yet a turn, and the timer that makes them one once no key follows. */
  private keys = '';
  private keysTimer: NodeJS.Timeout | null = null;
  closed = false;

  constructor(
    readonly workspaceId: string,
    readonly callId: string,
    private readonly transport: MediaTransport,
    private readonly settings: VoiceSettings,
    private readonly deps: SessionDeps,
  ) {
    this.detector = new TurnDetector(settings.endOfTurnSilenceMs);
    this.player = new FramePlayer(
      (frame) => this.transport.sendAudio(frame),
      (name) => this.transport.sendMark(name),
    );
    this.player.onFirstFrame = (at) => {
      this.emit({ type: 'status', state: 'speaking' });
      const timing = this.timing;
      this.timing = null;
      if (!timing) return;
      this.deps.onTurnTiming?.({ ...timing, firstFrameAt: at });
      this.emit({ type: 'turn', voice_to_voice_ms: Math.round(at - timing.speechEndAt) });
    };
  }

  /** A small event for a page on the far end (a browser call); transports without pages ignore it. */
  private emit(e: { type: string } & Record<string, unknown>): void {
    this.transport.event?.(e);
  }

  /** The agent's audio is playing: frames to send or a mark not yet echoed. */
  playing(): boolean {
    return this.player.busy() || this.marks.size > 0;
  }

  /** The caller's next audio: 16-bit PCM at the transport's sample rate (20 ms frames). */
  audio(pcm: Int16Array): void {
    if (this.closed) return;
    const event = this.detector.push(pcm);
    if (!event) return;
    if (event.type === 'speech-start') {
      this.emit({ type: 'status', state: 'listening' });
      if (this.playing() && this.settings.interruptible) this.bargeIn();
      return;
    }
    this.pressed(); // keys pressed before the utterance are the turn before it
    this.emit({ type: 'status', state: 'thinking' });
    const timing = this.timed(performance.now() - this.settings.endOfTurnSilenceMs);
    this.timing = timing ?? null;
    const audio = event.audio;
    const silence = this.settings.endOfTurnSilenceMs;
    void this.enqueue(
      voiceTurn(this, silence, () => this.turn(audio, timing)),
      'turn',
    );
  }

  /**
   * Starts a customer turn on `text` (a transcript). Speculative, the model starts at once while nothing is stored
   * or spoken until `commit()`; `cancel()` before it leaves no trace. Turns run one after another: a turn started
   * while another runs waits for it.
   */
  startTurn(text: string, options: StartTurnOptions = {}): SessionTurn {
    const controller = new AbortController();
    let commit: () => void = () => undefined;
    const committed = options.speculative ? new Promise<void>((r) => (commit = r)) : undefined;
    let state: 'pending' | 'committed' | 'cancelled' = committed ? 'pending' : 'committed';
    let outcome: TurnOutcome = 'answered';
    let reply: string | null = null;
    const timing = this.timed(options.speechEndAt ?? performance.now());
    if (state === 'committed' && timing) this.timing = timing;
    this.live.add(controller);
    const done = this.enqueue(async () => {
      try {
        // Cancelled while it waited for the turn before it, or the call is gone: it never starts.
        if (this.closed || (controller.signal.aborted && state !== 'committed')) throw new TurnCancelled();
        const live = { signal: controller.signal, commit: committed };
        reply = await this.converse(text, options.type ?? 'text', timing, undefined, live);
      } catch (err) {
        outcome = err instanceof TurnCancelled ? 'cancelled' : 'failed';
        if (outcome === 'failed') throw err;
      } finally {
        this.live.delete(controller);
      }
    }, 'turn').then(() => outcome);
    return {
      commit: () => {
        if (state !== 'pending' || this.closed) return;
        state = 'committed';
        if (timing) this.timing = timing;
        commit();
      },
      cancel: () => {
        if (state === 'cancelled' || controller.signal.aborted) return;
        const after = state === 'committed';
        state = after ? state : 'cancelled';
        controller.abort();
        // After the commit the reply is stored once the turn is over: it was cut.
        if (after) void done.then(() => this.cut(reply));
      },
      done,
    };
  }

  /** A new turn's timing, when someone reads timings. */
  private timed(speechEndAt: number): TurnTiming | undefined {
    return this.deps.onTurnTiming ? newTiming(speechEndAt, performance.now()) : undefined;
  }

  /** Runs a turn after the ones before it; a failure is logged and does not stop the ones after. */
  private enqueue(run: () => Promise<unknown>, what: string): Promise<void> {
    const next = this.turns.then(run).then(
      () => undefined,
      (err: Error) => this.failed(err, what),
    );
    this.turns = next;
    return next;
  }

  /** A key pressed: keys pressed close together (DTMF_GAP_MS apart at most) are one turn. */
  dtmf(digit: string): void {
    if (this.closed || digit.length !== 1 || !DTMF_KEYS.test(digit)) return;
    this.keys += digit;
    if (this.keysTimer) clearTimeout(this.keysTimer);
    this.keysTimer = null;
    if (this.keys.length >= DTMF_MAX_KEYS) this.pressed();
    else this.keysTimer = setTimeout(() => this.pressed(), DTMF_GAP_MS);
  }

  /** The keys held become a customer turn. */
  private pressed(): void {
    if (this.keysTimer) clearTimeout(this.keysTimer);
    this.keysTimer = null;
    const keys = this.keys;
    this.keys = '';
    if (!keys || this.closed) return;
    void this.enqueue(() => this.converse(pressedKeys(keys), 'dtmf'), 'dtmf turn');
  }

  mark(name: string): void {
    const done = this.marks.get(name);
    this.marks.delete(name);
    if (this.speaking === name) this.speaking = null;
    done?.();
  }

  /** Stops the agent's audio now (barge-in, `mute`, `say` with `interrupt`). */
  stop(): void {
    this.epoch += 1;
    this.player.clear();
    this.transport.clear();
    for (const done of this.marks.values()) done();
    this.marks.clear();
  }

  private bargeIn(): void {
    const cut = this.speaking;
    this.stop();
    this.speaking = null;
    this.cut(cut);
  }

  /** Stores that the customer cut this reply. */
  private cut(messageId: string | null): void {
    if (messageId)
      void this.deps.interrupted(messageId).catch((err: Error) => this.failed(err, 'interrupted flag'));
  }

  close(): void {
    this.closed = true;
    for (const turn of this.live) turn.abort();
    this.live.clear();
    if (this.keysTimer) clearTimeout(this.keysTimer);
    this.keysTimer = null;
    this.player.clear();
    for (const done of this.marks.values()) done();
    this.marks.clear();
  }

  private async turn(audio: Int16Array, timing?: TurnTiming): Promise<void> {
    if (this.closed) return;
    const file = wav(audio, this.transport.sampleRate);
    if (timing) timing.sttSentAt = performance.now();
    // The call row, its agent's version and the last messages are read while the speech is transcribed.
    const loaded = this.deps.runtime.loadForTurn(this.workspaceId, this.callId);
    loaded.catch(() => undefined); // awaited below when there is a transcript
    const text = await this.deps.stt.transcribe(file, { language: this.settings.language });
    if (timing) timing.sttDoneAt = performance.now();
    if (!text || this.closed) return;
    this.emit({ type: 'transcript', role: 'customer', text, final: true });
    await this.converse(text, 'text', timing, await loaded);
  }

  /**
   * One customer turn through the pipeline, the reply spoken sentence by sentence as the model writes it; answers
   * the stored reply's uuid. `live` makes it cancellable and speculative: nothing is spoken once its signal aborted.
   */
  private async converse(
    text: string,
    type: 'text' | 'dtmf',
    timing?: TurnTiming,
    loaded?: LoadedCall,
    live?: Omit<LiveTurn, 'onDelta'>,
  ): Promise<string | null> {
    const epoch = this.epoch;
    const splitter = new SentenceSplitter();
    let streamed = false;
    const turn = await this.deps.runtime.customerTurn(this.workspaceId, this.callId, text, type, loaded, {
      ...live,
      onDelta: (delta) => {
        streamed = true;
        if (timing && !timing.firstDeltaAt) timing.firstDeltaAt = performance.now();
        for (const s of splitter.push(delta)) this.sentence(s, epoch, timing);
      },
    });
    const reply = turn.reply?.uuid ?? null;
    if (live?.signal?.aborted) return reply;
    if (turn.reply) this.emit({ type: 'transcript', role: 'agent', text: turn.reply.content, final: true });
    for (const s of splitter.flush()) this.sentence(s, epoch, timing);
    await this.synth;
    // A rule's words were spoken by the runtime before its action; a reply not streamed is spoken here.
    if (!turn.reply || turn.action) return reply;
    if (!streamed) for (const s of this.split(turn.reply.content)) this.sentence(s, epoch);
    await this.synth;
    if (epoch !== this.epoch || this.closed) return reply;
    this.speaking = turn.reply.uuid;
    this.marks.set(turn.reply.uuid, () => undefined);
    this.player.mark(turn.reply.uuid);
    return reply;
  }

  /** Speaks a stored agent message (first message, `say`, a rule's words); resolves once played or cut. */
  async speak(text: string, messageId: string): Promise<void> {
    const epoch = this.epoch;
    for (const s of this.split(text)) this.sentence(s, epoch);
    await this.synth;
    if (epoch !== this.epoch || this.closed) return;
    this.speaking = messageId;
    const played = new Promise<void>((resolve) => {
      const cap = setTimeout(resolve, PLAYED_WAIT_CAP_MS);
      this.marks.set(messageId, () => {
        clearTimeout(cap);
        resolve();
      });
    });
    this.player.mark(messageId);
    await played;
  }

  /** The frames the transport takes: 8 kHz µ-law (Twilio) or 16 kHz PCM (web). */
  private get format(): FrameFormat {
    return this.transport.sampleRate === 8000 ? 'mulaw-8k' : 'pcm-16k';
  }

  private split(text: string): string[] {
    const splitter = new SentenceSplitter();
    return [...splitter.push(text), ...splitter.flush()];
  }

  /** Synthesis starts at once; playback keeps the order of the sentences. */
  private sentence(text: string, epoch: number, timing?: TurnTiming): void {
    if (epoch !== this.epoch || this.closed) return;
    if (timing && !timing.firstSentenceAt) timing.firstSentenceAt = performance.now();
    const audio = this.deps.tts.synthesize(text, { voice: this.settings.voice, speed: this.settings.speed });
    audio.catch(() => undefined);
    this.synth = this.synth.then(async () => {
      try {
        const pcm = await audio;
        if (timing && !timing.firstAudioAt) timing.firstAudioAt = performance.now();
        if (epoch !== this.epoch || this.closed) return;
        const stream = new FrameStream(this.format);
        this.player.enqueue([...stream.push(pcm), ...stream.flush()]);
      } catch (err) {
        this.failed(err as Error, 'speech synthesis');
      }
    });
  }

  private failed(err: Error, what: string): void {
    this.logger.warn({ callId: this.callId, err: err.message }, `${what} failed`);
  }
}
