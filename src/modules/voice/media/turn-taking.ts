import { performance } from 'node:perf_hooks';
import { onlyBackchannels, turnEnding } from './end-of-turn';
import type { SessionTurn, StartTurnOptions, VoiceSettings } from './media-session.types';
import { TurnDetector } from './turn-detector';
import type { VoiceActivityOptions } from './vad';

/** A finished-looking turn is committed after this much more silence than `min_silence_ms`. */
export const COMMIT_MARGIN_MS = 100;
/** While speech over the agent is undecided, its words so far are transcribed again after this much more audio. */
const CHECK_EVERY_MS = 200;
/** Speech over the agent is judged whole once it paused this long (its last words are in the audio). */
const OVERLAP_END_MS = 100;

/** What turn-taking asks of the session it serves. */
export interface TurnTakingHost {
  /** The agent's audio is playing, or held for speech over it. */
  speaking(): boolean;
  /** The words of the caller's audio (PCM at the detector's rate); '' when none or the service failed. */
  transcribe(audio: Int16Array, forTurn?: boolean): Promise<string>;
  /** Stops sending the agent's audio, keeping it (speech over it may be a backchannel). */
  hold(): void;
  /** Goes on with the held audio: the speech over it was a backchannel. */
  release(): void;
  /** The caller interrupts: the agent's audio is cut (`clear`) and its reply marked interrupted. */
  interrupt(): void;
  /** A customer turn on the words; speculative ones wait for `commit`. */
  startTurn(text: string, options: StartTurnOptions): SessionTurn;
  /** `fixed` endpointing: the utterance is over; it is transcribed and taken as a turn. */
  fixedTurn(audio: Int16Array, speechEndAt: number): void;
  /** A small event for a page (transcript, status). */
  event(e: { type: string } & Record<string, unknown>): void;
}

/** A transcription of the utterance so far taken at a pause, and the speculative turn started on its words. */
interface Speculation {
  speechEndAt: number;
  sttSentAt: number;
  sttDoneAt: number;
  text: string | null;
  turn: SessionTurn | null;
  /** Silence needed before the commit: short when the words read as finished. */
  waitMs: number;
  /** The utterance already ended (`max_silence_ms`): committed as soon as its words are known. */
  final: boolean;
  cancelled: boolean;
}

/** The utterance being heard. */
interface Utterance {
  /** Started over the agent's speech and not yet judged: a backchannel until its words say otherwise. */
  overlap: boolean;
  /** The agent's audio is held for it. */
  held: boolean;
  /** A transcription of its audio so far is under way (overlap only), and how much audio the last one had. */
  checking: boolean;
  checkedMs: number;
  /** It ended (`turn`) while a check was under way: the check decides it whole. */
  ended: { audio: Int16Array; speechEndAt: number } | null;
  spec: Speculation | null;
  /** Speech frames heard: a transcription taken at a pause is whole while this has not grown. */
  speechMs: number;
}

/**
 * When the caller has finished and whether speech over the agent interrupts it, for one media session.
 *
 * Smart endpointing: at a pause of `min_silence_ms` the utterance so far is transcribed and a speculative turn
 * starts on the words (the model starts; nothing is stored or spoken). Words that read as finished (`turnEnding`)
 * commit it at `min_silence_ms` + COMMIT_MARGIN_MS of silence, others at `max_silence_ms`; the caller going on
 * first cancels it and the utterance goes on whole, transcribed again at its next pause. Fixed endpointing: the
 * utterance ends after `end_of_turn_silence_ms` and is then transcribed.
 *
 * Speech over the agent's audio: with `min_speech_ms` 0 it cuts the agent at once. Otherwise, once that long, the
 * agent's audio is held and the speech transcribed as it goes on: words that are not only `ignore_words` cut the
 * agent (`clear`, reply marked interrupted) and make a turn; only backchannels (or no words) once it paused let the
 * agent go on, and make no turn. Shorter speech over the agent never cuts it: its words make a turn after the
 * reply unless they are only backchannels.
 */
export class TurnTaking {
  readonly detector: TurnDetector;
  private u: Utterance | null = null;

  constructor(
    private readonly settings: VoiceSettings,
    private readonly host: TurnTakingHost,
    vad: VoiceActivityOptions,
  ) {
    const smart = settings.endpointing.mode === 'smart';
    this.detector = new TurnDetector({
      endSilenceMs: smart ? settings.endpointing.maxSilenceMs : settings.endOfTurnSilenceMs,
      pauseMs: smart ? settings.endpointing.minSilenceMs : null,
      vad,
    });
  }

  private get smart(): boolean {
    return this.settings.endpointing.mode === 'smart';
  }

  /** The caller's next 20 ms of PCM. */
  push(pcm: Int16Array): void {
    const event = this.detector.push(pcm);
    if (event?.type === 'speech-start') this.started();
    else if (event?.type === 'pause') this.paused(event.audio, event.speechEndAt);
    else if (event?.type === 'resume') this.resumed();
    else if (event?.type === 'turn') this.ended(event.audio, event.speechEndAt);
    const u = this.u;
    if (!u) return;
    u.speechMs = this.detector.speechMs || u.speechMs;
    // Too short or too quiet to be a turn: the detector let it go.
    if (!this.detector.hearing && !u.ended && !u.spec && !u.checking) return this.drop(u, true);
    if (u.overlap) this.judgeOverlap(u);
    else if (u.spec) this.maybeCommit(u, u.spec);
  }

  /** The session is over: a speculative turn not committed leaves no trace. */
  close(): void {
    const spec = this.u?.spec;
    if (spec && !spec.cancelled) spec.turn?.cancel();
    this.u = null;
  }

  private started(): void {
    if (this.u?.held) this.host.release(); // an utterance left undecided does not keep the agent held
    this.host.event({ type: 'status', state: 'listening' });
    const over = this.host.speaking() && this.settings.interruptible;
    this.u = {
      overlap: over,
      held: false,
      checking: false,
      checkedMs: 0,
      ended: null,
      spec: null,
      speechMs: 0,
    };
    if (over && this.settings.interruption.minSpeechMs === 0) {
      this.u.overlap = false;
      this.host.interrupt();
    }
  }

  private paused(audio: Int16Array, speechEndAt: number): void {
    const u = this.u;
    if (!u || u.overlap) return; // speech over the agent is judged by judgeOverlap
    this.speculate(u, audio, speechEndAt, false);
  }

  private resumed(): void {
    const u = this.u;
    const spec = u?.spec;
    if (!u || !spec) return;
    // The caller went on: the turn started on the words so far leaves no trace.
    spec.cancelled = true;
    spec.turn?.cancel();
    u.spec = null;
    this.host.event({ type: 'status', state: 'listening' });
  }

  private ended(audio: Int16Array, speechEndAt: number): void {
    const u = this.u;
    if (!u) return;
    if (u.overlap) {
      u.ended = { audio, speechEndAt };
      if (!u.checking) this.check(u, audio);
      return;
    }
    if (!this.smart) {
      this.u = null;
      this.host.fixedTurn(audio, speechEndAt);
      return;
    }
    const spec = u.spec;
    if (spec?.text === '') this.drop(u);
    else if (spec && !spec.cancelled) {
      spec.final = true;
      this.maybeCommit(u, spec);
    } else this.speculate(u, audio, speechEndAt, true);
  }

  /** Transcribes the utterance so far and starts a speculative turn on its words. */
  private speculate(u: Utterance, audio: Int16Array, speechEndAt: number, final: boolean): void {
    const spec: Speculation = {
      speechEndAt,
      sttSentAt: performance.now(),
      sttDoneAt: 0,
      text: null,
      turn: null,
      waitMs: this.settings.endpointing.maxSilenceMs,
      final,
      cancelled: false,
    };
    u.spec = spec;
    void this.host.transcribe(audio, true).then((text) => {
      spec.sttDoneAt = performance.now();
      if (spec.cancelled || this.u !== u || u.spec !== spec) return;
      this.begin(u, spec, text);
    });
  }

  /** The words of a speculation are known: its turn starts (speculative), committed once the silence is enough. */
  private begin(u: Utterance, spec: Speculation, text: string): void {
    spec.text = text;
    if (!text) {
      // No words: nothing to answer; an utterance that ended is dropped, one still paused waits for more speech.
      if (spec.final) this.drop(u);
      return;
    }
    const ending = turnEnding(text, this.settings.language);
    const { minSilenceMs, maxSilenceMs } = this.settings.endpointing;
    spec.waitMs = ending.complete ? Math.min(minSilenceMs + COMMIT_MARGIN_MS, maxSilenceMs) : maxSilenceMs;
    spec.turn = this.host.startTurn(text, {
      speculative: true,
      speechEndAt: spec.speechEndAt,
      sttSentAt: spec.sttSentAt,
      sttDoneAt: spec.sttDoneAt,
    });
    this.host.event({ type: 'transcript', role: 'customer', text, final: false });
    this.maybeCommit(u, spec);
  }

  private maybeCommit(u: Utterance, spec: Speculation): void {
    if (!spec.turn || spec.cancelled) return;
    const silence = this.detector.hearing ? this.detector.silenceMs : Infinity;
    if (!spec.final && silence < spec.waitMs) return;
    // The caller has finished: what follows is another utterance.
    this.u = null;
    if (!spec.final) this.detector.cut();
    spec.turn.commit();
    this.host.event({ type: 'transcript', role: 'customer', text: spec.text, final: true });
    this.host.event({ type: 'status', state: 'thinking' });
  }

  /** Speech over the agent: held once long enough, transcribed as it goes on, judged by its words. */
  private judgeOverlap(u: Utterance): void {
    const { minSpeechMs, ignoreWords } = this.settings.interruption;
    const long = u.speechMs >= minSpeechMs && this.detector.audible;
    if (long && !u.held && this.host.speaking()) {
      if (!ignoreWords.length) {
        u.overlap = false;
        this.host.interrupt();
        return;
      }
      u.held = true;
      this.host.hold();
    }
    if (u.checking || u.ended) return;
    const silence = this.detector.silenceMs;
    const grown = u.speechMs - u.checkedMs;
    const paused = silence >= OVERLAP_END_MS && grown > 0;
    if ((u.held && grown >= CHECK_EVERY_MS) || paused) this.check(u, this.detector.audio());
  }

  /** Transcribes speech over the agent (so far, or whole once it ended) and judges it by its words. */
  private check(u: Utterance, audio: Int16Array): void {
    u.checking = true;
    u.checkedMs = u.speechMs;
    const whole = !!u.ended || this.detector.silenceMs >= OVERLAP_END_MS;
    const sttSentAt = performance.now();
    void this.host.transcribe(audio).then((text) => {
      const sttDoneAt = performance.now();
      u.checking = false;
      if (this.u !== u) return;
      const { ignoreWords } = this.settings.interruption;
      const words = text.trim() !== '' && !onlyBackchannels(text, ignoreWords, this.settings.language);
      // Whole: the audio transcribed holds all the speech (no speech came after it).
      const checkedWhole = whole && u.speechMs === u.checkedMs;
      // The detector let the utterance go (too short or quiet for a turn): only an interruption was at stake.
      const gone = !this.detector.hearing && !u.ended;
      if (words) {
        u.overlap = false;
        if (u.held) {
          u.held = false;
          this.host.interrupt();
        }
        const ended = u.ended;
        if (checkedWhole && ended) return this.taken(u, text, ended.speechEndAt, sttSentAt, sttDoneAt);
        if (checkedWhole && this.smart)
          return this.begin(u, this.spec(u, this.detector.speechEndAt, sttSentAt, sttDoneAt), text);
        // Words of a part: the utterance goes on as any other; once ended, it is transcribed whole.
        if (ended) {
          u.ended = null;
          this.ended(ended.audio, ended.speechEndAt);
        }
        return;
      }
      if (checkedWhole || gone) {
        if (text.trim()) this.host.event({ type: 'backchannel', text });
        this.drop(u, true);
        return;
      }
      if (u.ended) this.check(u, u.ended.audio);
    });
  }

  /** A speculation for words already transcribed. */
  private spec(u: Utterance, speechEndAt: number, sttSentAt: number, sttDoneAt: number): Speculation {
    const spec: Speculation = {
      speechEndAt,
      sttSentAt,
      sttDoneAt,
      text: null,
      turn: null,
      waitMs: this.settings.endpointing.maxSilenceMs,
      final: false,
      cancelled: false,
    };
    u.spec = spec;
    return spec;
  }

  /** The utterance ended and its words (transcribed whole) make a turn now. */
  private taken(u: Utterance, text: string, speechEndAt: number, sttSentAt: number, sttDoneAt: number): void {
    if (this.u === u) this.u = null;
    this.host.startTurn(text, { speechEndAt, sttSentAt, sttDoneAt });
    this.host.event({ type: 'transcript', role: 'customer', text, final: true });
    this.host.event({ type: 'status', state: 'thinking' });
  }

  /** The utterance makes no turn (no words, or only backchannels); `release`: the agent goes on if held for it. */
  private drop(u: Utterance, release = false): void {
    if (this.u !== u) return;
    this.u = null;
    if (this.detector.hearing) this.detector.cut();
    if (release && u.held) {
      u.held = false;
      this.host.release();
    }
  }
}
