import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { LoadedCall } from '@/modules/calls/runtime/call-runtime.service';
import { pressedKeys } from '@/modules/calls/runtime/dtmf';
import { outcomeOf, TakeTurnOptions, TurnCancelled } from '@/modules/runtime/public';
import { voiceTurn } from '@/common/telemetry/call-spans';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { wav } from './audio';
import { SentenceSplitter } from './sentences';
import { SessionKeypad } from './session-keypad';
import { SessionPlayback, Voice } from './session-playback';
import type { MediaTransport } from './transport';
import { TurnTaking } from './turn-taking';
import { CallWords } from './utterance-words';
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
export { DTMF_GAP_MS } from './session-keypad';
export { PLAYED_WAIT_CAP_MS } from './session-playback';

/**
 * One call's media session on its transport (a Twilio Media Stream, a browser's WebSocket): takes the caller's PCM,
 * takes turns (TurnTaking: voice activity, smart or fixed endpointing, speculative turns, interruptions) on the
 * caller's words (CallWords: batch transcriptions, or the call's speech-to-text stream in realtime mode), runs each
 * through the turn pipeline with the model's reply streamed, and speaks it phrase by phrase (SessionPlayback); a
 * real interruption clears it and stops the reply.
 */
export class MediaSession {
  private readonly logger = new Logger(MediaSession.name);
  private readonly turnTaking: TurnTaking;
  private readonly playback: SessionPlayback;
  private readonly words: CallWords;
  /** Aborted when the session closes (the speech-to-text stream with it). */
  private readonly ending = new AbortController();
  private turns: Promise<void> = Promise.resolve();
  /** Turns queued or running, and how many have run (a read made before the last one ended may be stale). */
  private queued = 0;
  private ran = 0;
  /**
   * The call row and history read ahead for the next turn, the queue being idle: from the start of an utterance whose
   * words come from the stream (known at its pause), else while a speculative turn's words are transcribed. Not used
   * once a turn ended after it started (`ran`), the agent spoke a stored message or stopped, or another utterance
   * began.
   */
  private ahead: { ran: number; loaded: Promise<LoadedCall | undefined> } | null = null;
  /** A turn may start soon: the call row and history are read ahead as soon as no turn is queued. */
  private wanted = false;
  /** The reply message of a timed turn, once stored (its timing is stored once its first frame went out too). */
  private readonly replies = new WeakMap<TurnTiming, string>();
  /** The reply being spoken as the model writes it (its message is stored when the model has finished). */
  private replying: Voice | null = null;
  /** The signals of the turns started and not over (aborted when the session closes). */
  private readonly live = new Set<AbortController>();
  /** Keys pressed: each run of them a turn. */
  private readonly keypad = new SessionKeypad((keys) => {
    if (!this.closed) void this.enqueue(() => this.converse(pressedKeys(keys), 'dtmf'), 'dtmf turn');
  });
  closed = false;

  constructor(
    readonly workspaceId: WorkspaceId,
    readonly callId: string,
    private readonly transport: MediaTransport,
    private readonly settings: VoiceSettings,
    private readonly deps: SessionDeps,
  ) {
    this.playback = new SessionPlayback(transport, settings, deps.tts, {
      firstFrame: (timing, at) => this.firstFrame(timing, at),
      speaking: () => this.emit({ type: 'status', state: 'speaking' }),
      failed: (err, what) => this.failed(err, what),
    });
    this.words = new CallWords({
      callId,
      stt: deps.stt,
      stream: deps.sttStream,
      language: settings.language,
      sampleRate: transport.sampleRate,
      began: (streamed) => this.began(streamed),
      prepare: () => this.prepare(),
      failed: (err, what) => this.failed(err, what),
    });
    this.turnTaking = new TurnTaking(
      settings,
      {
        speaking: () => this.playing(),
        hold: () => this.playback.hold(),
        release: () => this.playback.release(),
        interrupt: () => this.bargeIn(),
        startTurn: (text, options) => this.startTurn(text, options),
        fixedTurn: (audio, speechEndAt, words) => this.fixedTurn(audio, speechEndAt, words),
        event: (e) => this.emit(e),
      },
      { ...deps.vad, sampleRate: transport.sampleRate },
      this.words,
    );
    if (deps.sttStream) void this.words.listen(this.ending.signal);
  }

  /** What the session runs on (`twilio`, `web`): open calls are counted by it. */
  get transportKind(): MediaTransport['kind'] {
    return this.transport.kind;
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
    return this.playback.playing();
  }

  /** The caller's next audio: 16-bit PCM at the transport's sample rate (20 ms frames). */
  audio(pcm: Int16Array): void {
    if (this.closed) return;
    this.turnTaking.push(pcm);
  }

  /** `fixed` endpointing: an utterance ended; it is taken as a turn on its words (`null`: its audio transcribed). */
  private fixedTurn(audio: Int16Array, speechEndAt: number, words: Promise<string> | null): void {
    this.keypad.flush(); // keys pressed before the utterance are the turn before it
    this.emit({ type: 'status', state: 'thinking' });
    const timing = newTiming(speechEndAt, performance.now());
    if (words) timing.sttSentAt = timing.detectedAt;
    const silence = this.settings.endOfTurnSilenceMs;
    void this.enqueue(
      voiceTurn(this, silence, () => this.turn(audio, timing, words)),
      'turn',
    );
  }

  /**
   * An utterance starts: what was read ahead before it is not used. A streamed one's turn (smart endpointing) starts
   * at its pause on words known then: its call row and history are read now, off the turn's path.
   */
  private began(streamed: boolean): void {
    this.ahead = null;
    this.wanted = false;
    if (streamed && this.settings.endpointing.mode === 'smart') this.prepare();
  }

  /** A turn may start soon: the call row and history are read ahead, now or once no turn is queued. */
  private prepare(): void {
    this.wanted = true;
    this.readAhead();
  }

  /** Reads the call row and history ahead when wanted and no turn is queued, unless a read still good is held. */
  private readAhead(): void {
    if (!this.wanted || this.closed || this.queued !== 0 || this.ahead?.ran === this.ran) return;
    const loaded = this.deps.runtime.loadForTurn(this.workspaceId, this.callId).catch(() => undefined);
    this.ahead = { ran: this.ran, loaded };
  }

  /**
   * Starts a customer turn on `text` (a transcript). Speculative, the model starts at once while nothing is stored
   * or spoken until `commit()`; `cancel()` before it leaves no trace. Turns run one after another: a turn started
   * while another runs waits for it.
   */
  startTurn(text: string, options: StartTurnOptions = {}): SessionTurn {
    this.keypad.flush(); // keys pressed before the words are the turn before them
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
        const read = this.ahead?.ran === this.ran ? this.ahead.loaded : undefined;
        this.ahead = null;
        this.wanted = false;
        reply = await this.converse(text, options.type ?? 'text', timing, await read, live);
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
        // Before its commit the caller went on: the next turn's call row and history are read once this one is over.
        if (!after) this.wanted = true;
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
        this.readAhead();
      });
    this.turns = next;
    return next;
  }

  /** A key pressed: keys pressed close together (DTMF_GAP_MS apart at most) are one turn. */
  dtmf(digit: string): void {
    if (!this.closed) this.keypad.press(digit);
  }

  mark(name: string): void {
    this.playback.mark(name);
  }

  /** Stops the agent's audio now (barge-in, `mute`, `say` with `interrupt`); what was read ahead is not used. */
  stop(): void {
    this.ahead = null;
    this.playback.stop();
  }

  private bargeIn(): void {
    const cut = this.playback.speaking;
    const replying = this.replying;
    this.stop();
    this.playback.speaking = null;
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
    this.words.close();
    this.ending.abort();
    for (const turn of this.live) turn.abort();
    this.live.clear();
    this.keypad.close();
    this.playback.close();
  }

  /** A fixed endpointing turn: on a stream's words, or on its audio transcribed now (within the turn's trace). */
  private async turn(audio: Int16Array, timing: TurnTiming, words: Promise<string> | null): Promise<void> {
    if (this.closed) return;
    if (!words) timing.sttSentAt = performance.now();
    // The call row, its agent's version and the last messages are read while the speech is transcribed.
    const loaded = this.deps.runtime.loadForTurn(this.workspaceId, this.callId);
    loaded.catch(() => undefined); // awaited below when there is a transcript
    const text = await (words ??
      this.deps.stt.transcribe(wav(audio, this.transport.sampleRate), { language: this.settings.language }));
    timing.sttDoneAt = performance.now();
    if (!text || this.closed) return;
    this.emit({ type: 'transcript', role: 'customer', text, final: true });
    await this.converse(text, 'text', timing, await loaded);
  }

  /**
   * One customer turn through the pipeline, read as its events: the reply's text spoken phrase by phrase as the model
   * writes it; answers the stored reply's uuid. `live` makes it cancellable and speculative: nothing is spoken once
   * its signal aborted (the turn's text stops).
   */
  private async converse(
    text: string,
    type: 'text' | 'dtmf',
    timing?: TurnTiming,
    loaded?: LoadedCall,
    live?: Omit<TakeTurnOptions, 'deltas'>,
  ): Promise<string | null> {
    const { playback } = this;
    const voice = playback.voice();
    const splitter = new SentenceSplitter();
    let streamed = false;
    if (timing) timing.modelAt = performance.now();
    const events = this.deps.runtime.customerTurn(this.workspaceId, this.callId, text, type, loaded, {
      ...live,
      deltas: true,
    });
    const turn = await outcomeOf(events, (event) => {
      if (event.type !== 'text') return;
      if (!streamed) this.replying = voice;
      streamed = true;
      if (timing && !timing.firstDeltaAt) timing.firstDeltaAt = performance.now();
      for (const s of splitter.push(event.delta)) playback.sentence(s, voice, timing);
    });
    if (this.replying === voice) this.replying = null;
    const reply = turn.reply?.uuid ?? null;
    if (timing && reply) this.record(timing, reply);
    if (reply && !turn.action) voice.messageId = reply;
    if (reply && voice.spoke && !voice.cut && playback.live(voice)) playback.speaking = reply;
    if (live?.signal?.aborted) return reply;
    // Cut while the model was still writing (its first words were heard).
    if (voice.cut) {
      this.cut(reply);
      return reply;
    }
    if (turn.reply) this.emit({ type: 'transcript', role: 'agent', text: turn.reply.content, final: true });
    for (const s of splitter.flush()) playback.sentence(s, voice, timing);
    // A rule's words were spoken by the runtime before its action; a reply not streamed is spoken here.
    if (!turn.reply || turn.action) {
      await playback.flushed();
      return reply;
    }
    if (!streamed) for (const s of playback.split(turn.reply.content)) playback.sentence(s, voice, timing);
    await playback.end(voice, turn.reply.uuid, false);
    return reply;
  }

  /**
   * Speaks a stored agent message (first message, `say`, a rule's words); resolves once played or cut. What was read
   * ahead before it is not used (the message is not in its history).
   */
  speak(text: string, messageId: string): Promise<void> {
    this.ahead = null;
    return this.playback.speak(text, messageId);
  }

  private failed(err: Error, what: string): void {
    this.logger.warn({ callId: this.callId, err: err.message }, `${what} failed`);
  }
}
