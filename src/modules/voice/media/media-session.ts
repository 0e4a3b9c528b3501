import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { LoadedCall } from '@/modules/calls/call-runtime.service';
import { DTMF_KEYS, pressedKeys } from '@/modules/calls/dtmf';
import { LiveTurn, TurnCancelled } from '@/modules/conversations/turn-gate';
import { inCallTrace, voiceTurn } from '@/common/telemetry/telemetry';
import { FrameFormat, FrameStream, wav } from './audio';
import { FramePlayer } from './frame-player';
import { SentenceSplitter } from './sentences';
import { prefetch, whole } from './speech-stream';
import type { MediaTransport } from './transport';
import { TurnTaking } from './turn-taking';
import {
  latencyOf,
  newTiming,
  SessionDeps,
  SessionTurn,
  StartTurnOptions,
  TurnOutcome,
  TurnTiming,
  VoiceSettings,
} from './media-session.types';

export * from './media-session.types';

/**
 * One reply or message being spoken: the epoch it belongs to, its stored message once known, whether any of it was
 * sent to be heard, whether it was cut.
 */
interface Voice {
  epoch: number;
  messageId?: string;
  spoke: boolean;
  cut: boolean;
}

/** Longest wait for the far end to confirm a message was played before an action that follows it. */
export const PLAYED_WAIT_CAP_MS = 15_000;
/** Keys pressed within this long of the previous one are one turn, `(pressed 1 2)`. */
export const DTMF_GAP_MS = 1_500;
/** Keys held at most: one more makes a turn of those at once. */
const DTMF_MAX_KEYS = 32;

/**
 * One call's media session on its transport (a Twilio Media Stream, a browser's WebSocket): takes the caller's PCM,
 * takes turns (TurnTaking: voice activity, smart or fixed endpointing, speculative turns, interruptions), runs each
 * through STT and the turn pipeline with the model's reply streamed, synthesises it phrase by phrase as a stream and
 * plays it paced to real time in the transport's codec; a real interruption clears it and stops the reply.
 */
export class MediaSession {
  private readonly logger = new Logger(MediaSession.name);
  private readonly turnTaking: TurnTaking;
  private readonly player: FramePlayer;
  /** Aborted when the agent's audio is cut: the speech requests under way stop. */
  private speech = new AbortController();
  private turns: Promise<void> = Promise.resolve();
  /** Turns queued or running, and how many have run (a read made before the last one ended may be stale). */
  private queued = 0;
  private ran = 0;
  /** The call row and history read while a speculative turn's words were transcribed (the queue being idle). */
  private ahead: { ran: number; loaded: Promise<LoadedCall | undefined> } | null = null;
  private synth: Promise<void> = Promise.resolve();
  /** Bumped on barge-in: sentences of an older epoch are dropped. */
  private epoch = 0;
  private readonly marks = new Map<string, () => void>();
  /** The message whose audio is playing now (for `interrupted`). */
  private speaking: string | null = null;
  /** The reply message of a timed turn, once stored (its timing is stored once its first frame went out too). */
  private readonly replies = new WeakMap<TurnTiming, string>();
  /** The reply being spoken as the model writes it (its message is stored when the model has finished). */
  private replying: Voice | null = null;
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
    this.turnTaking = new TurnTaking(
      settings,
      {
        speaking: () => this.playing(),
        transcribe: (audio, forTurn) => this.transcribe(audio, forTurn),
        hold: () => this.player.hold(),
        release: () => this.player.release(),
        interrupt: () => this.bargeIn(),
        startTurn: (text, options) => this.startTurn(text, options),
        fixedTurn: (audio, speechEndAt) => this.fixedTurn(audio, speechEndAt),
        event: (e) => this.emit(e),
      },
      { ...deps.vad, sampleRate: transport.sampleRate },
    );
    this.player = new FramePlayer(
      (frame) => this.transport.sendAudio(frame),
      (name) => this.transport.sendMark(name),
    );
    this.player.onFirstFrame = () => this.emit({ type: 'status', state: 'speaking' });
  }

  /** The first frame of a timed turn's reply went out. */
  private firstFrame(timing: TurnTiming, at: number): void {
    if (timing.firstFrameAt) return;
    timing.firstFrameAt = at;
    this.deps.onTurnTiming?.({ ...timing });
    this.emit({ type: 'turn', voice_to_voice_ms: Math.round(at - timing.speechEndAt) });
    this.record(timing);
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
    this.turnTaking.push(pcm);
  }

  /** `fixed` endpointing: an utterance ended; it is transcribed and taken as a turn. */
  private fixedTurn(audio: Int16Array, speechEndAt: number): void {
    this.pressed(); // keys pressed before the utterance are the turn before it
    this.emit({ type: 'status', state: 'thinking' });
    const timing = newTiming(speechEndAt, performance.now());
    const silence = this.settings.endOfTurnSilenceMs;
    void this.enqueue(
      voiceTurn(this, silence, () => this.turn(audio, timing)),
      'turn',
    );
  }

  /**
   * The words of the caller's audio ('' when the service fails: the failure is logged). `forTurn`: a turn may start
   * on them, so the call row and history are read meanwhile when no turn is queued (as the fixed path does).
   */
  private async transcribe(audio: Int16Array, forTurn = false): Promise<string> {
    if (forTurn && this.queued === 0) {
      const loaded = this.deps.runtime.loadForTurn(this.workspaceId, this.callId).catch(() => undefined);
      this.ahead = { ran: this.ran, loaded };
    }
    try {
      const words = () =>
        this.deps.stt.transcribe(wav(audio, this.transport.sampleRate), { language: this.settings.language });
      return await inCallTrace(this.callId, words); // the stt span in the call's trace
    } catch (err) {
      this.failed(err as Error, 'speech to text');
      return '';
    }
  }

  /**
   * Starts a customer turn on `text` (a transcript). Speculative, the model starts at once while nothing is stored
   * or spoken until `commit()`; `cancel()` before it leaves no trace. Turns run one after another: a turn started
   * while another runs waits for it.
   */
  startTurn(text: string, options: StartTurnOptions = {}): SessionTurn {
    this.pressed(); // keys pressed before the words are the turn before them
    const controller = new AbortController();
    let commit: () => void = () => undefined;
    const committed = options.speculative ? new Promise<void>((r) => (commit = r)) : undefined;
    let state: 'pending' | 'committed' | 'cancelled' = committed ? 'pending' : 'committed';
    let outcome: TurnOutcome = 'answered';
    let reply: string | null = null;
    const timing = newTiming(options.speechEndAt ?? performance.now(), performance.now());
    timing.sttSentAt = options.sttSentAt ?? 0;
    timing.sttDoneAt = options.sttDoneAt ?? 0;
    this.live.add(controller);
    const done = this.enqueue(async () => {
      try {
        // Cancelled while it waited for the turn before it, or the call is gone: it never starts.
        if (this.closed || (controller.signal.aborted && state !== 'committed')) throw new TurnCancelled();
        const live = { signal: controller.signal, commit: committed };
        const ahead = this.ahead?.ran === this.ran ? await this.ahead.loaded : undefined;
        this.ahead = null;
        reply = await this.converse(text, options.type ?? 'text', timing, ahead, live);
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
        timing.detectedAt = performance.now();
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

  /**
   * Stores a reply's timing once both its first frame went out and its message is known (the reply is stored when
   * the model has finished, often after its first words played).
   */
  private record(timing: TurnTiming, messageId?: string | null): void {
    if (messageId) this.replies.set(timing, messageId);
    const id = this.replies.get(timing);
    if (!timing.firstFrameAt || !id) return;
    this.replies.delete(timing);
    this.deps.latency?.(id, latencyOf(timing));
  }

  /** Runs a turn after the ones before it; a failure is logged and does not stop the ones after. */
  private enqueue(run: () => Promise<unknown>, what: string): Promise<void> {
    this.queued += 1;
    const next = this.turns
      .then(run)
      .then(
        () => undefined,
        (err: Error) => this.failed(err, what),
      )
      .finally(() => {
        this.queued -= 1;
        this.ran += 1;
      });
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
    this.speech.abort();
    this.speech = new AbortController();
    this.player.clear();
    this.transport.clear();
    for (const done of this.marks.values()) done();
    this.marks.clear();
  }

  private bargeIn(): void {
    const cut = this.speaking;
    const replying = this.replying;
    this.stop();
    this.speaking = null;
    this.cut(cut);
    // A reply heard before its message was stored is marked once it is.
    if (replying?.spoke && !replying.cut) replying.cut = true;
  }

  /** Stores that the customer cut this reply. */
  private cut(messageId: string | null): void {
    if (messageId)
      void this.deps.interrupted(messageId).catch((err: Error) => this.failed(err, 'interrupted flag'));
  }

  close(): void {
    this.closed = true;
    this.turnTaking.close();
    this.speech.abort();
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
   * One customer turn through the pipeline, the reply spoken phrase by phrase as the model writes it; answers
   * the stored reply's uuid. `live` makes it cancellable and speculative: nothing is spoken once its signal aborted.
   */
  private async converse(
    text: string,
    type: 'text' | 'dtmf',
    timing?: TurnTiming,
    loaded?: LoadedCall,
    live?: Omit<LiveTurn, 'onDelta'>,
  ): Promise<string | null> {
    const voice: Voice = { epoch: this.epoch, spoke: false, cut: false };
    const splitter = new SentenceSplitter();
    let streamed = false;
    if (timing) timing.modelAt = performance.now();
    const turn = await this.deps.runtime.customerTurn(this.workspaceId, this.callId, text, type, loaded, {
      ...live,
      onDelta: (delta) => {
        if (!streamed) this.replying = voice;
        streamed = true;
        if (timing && !timing.firstDeltaAt) timing.firstDeltaAt = performance.now();
        for (const s of splitter.push(delta)) this.sentence(s, voice, timing);
      },
    });
    if (this.replying === voice) this.replying = null;
    const reply = turn.reply?.uuid ?? null;
    if (timing && reply) this.record(timing, reply);
    if (reply && !turn.action) voice.messageId = reply;
    if (reply && voice.spoke && !voice.cut && voice.epoch === this.epoch) this.speaking = reply;
    if (live?.signal?.aborted) return reply;
    // Cut while the model was still writing (its first words were heard).
    if (voice.cut) {
      this.cut(reply);
      return reply;
    }
    if (turn.reply) this.emit({ type: 'transcript', role: 'agent', text: turn.reply.content, final: true });
    for (const s of splitter.flush()) this.sentence(s, voice, timing);
    // A rule's words were spoken by the runtime before its action; a reply not streamed is spoken here.
    if (!turn.reply || turn.action) {
      await this.synth;
      return reply;
    }
    if (!streamed) for (const s of this.split(turn.reply.content)) this.sentence(s, voice, timing);
    await this.synth;
    if (voice.epoch !== this.epoch || this.closed) return reply;
    this.speaking = turn.reply.uuid;
    this.marks.set(turn.reply.uuid, () => undefined);
    this.player.mark(turn.reply.uuid);
    return reply;
  }

  /** Speaks a stored agent message (first message, `say`, a rule's words); resolves once played or cut. */
  async speak(text: string, messageId: string): Promise<void> {
    const voice: Voice = { epoch: this.epoch, messageId, spoke: false, cut: false };
    for (const s of this.split(text)) this.sentence(s, voice);
    await this.synth;
    if (voice.epoch !== this.epoch || this.closed) return;
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

  /**
   * Synthesis starts at once (its audio gathered as it comes); playback keeps the order of the phrases, each
   * played from its first audio on (whole once synthesised with `stream_speech` false).
   */
  private sentence(text: string, voice: Voice, timing?: TurnTiming): void {
    if (voice.epoch !== this.epoch || this.closed) return;
    const first = timing && !timing.firstSentenceAt ? timing : undefined;
    if (first) first.firstSentenceAt = performance.now();
    const options = { voice: this.settings.voice, speed: this.settings.speed };
    const signal = this.speech.signal;
    const audio = prefetch(
      this.settings.streamSpeech
        ? this.deps.tts.synthesizeStream(text, options, signal)
        : whole(this.deps.tts.synthesize(text, options, signal)),
      () => {
        if (first && !first.firstAudioAt) first.firstAudioAt = performance.now();
      },
    );
    this.synth = this.synth.then(async () => {
      const frames = new FrameStream(this.format);
      const live = () => voice.epoch === this.epoch && !this.closed;
      try {
        for await (const pcm of audio) {
          if (!live()) return;
          const out = frames.push(pcm);
          if (!out.length) continue;
          const sent = first && !voice.spoke ? (at: number) => this.firstFrame(first, at) : undefined;
          if (!voice.spoke && voice.messageId) this.speaking = voice.messageId;
          voice.spoke = true;
          this.player.enqueue(out, sent);
        }
        if (live()) this.player.enqueue(frames.flush());
      } catch (err) {
        if (!signal.aborted) this.failed(err as Error, 'speech synthesis');
      }
    });
  }

  private failed(err: Error, what: string): void {
    this.logger.warn({ callId: this.callId, err: err.message }, `${what} failed`);
  }
}
