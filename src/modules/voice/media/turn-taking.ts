import { performance } from 'node:perf_hooks';
import { onlyBackchannels, turnEnding } from './end-of-turn';
import type { SessionTurn, StartTurnOptions, VoiceSettings } from './media-session.types';
import { TurnDetector } from './turn-detector';
import type { UtteranceWords } from './utterance-words';
import { sameWords } from './utterance-words';
import type { VoiceActivityOptions } from './vad';

/** A finished-looking turn is committed after this much more silence than `min_silence_ms`. */
export const COMMIT_MARGIN_MS = 100;
/**
 * While speech over the agent is undecided, its words so far are transcribed again after this much more audio (in
 * batch; a stream's words are read as they arrive).
 */
const CHECK_EVERY_MS = 200;
/** Speech over the agent is judged whole once it paused this long (its last words are in the audio). */
const OVERLAP_END_MS = 100;

/** What turn-taking asks of the session it serves. */
export interface TurnTakingHost {
  /** The agent's audio is playing, or held for speech over it. */
  speaking(): boolean;
  /** Stops sending the agent's audio, keeping it (speech over it may be a backchannel). */
  hold(): void;
  /** Goes on with the held audio: the speech over it was a backchannel. */
  release(): void;
  /** The caller interrupts: the agent's audio is cut (`clear`) and its reply marked interrupted. */
  interrupt(): void;
  /** A customer turn on the words; speculative ones wait for `commit`. */
  startTurn(text: string, options: StartTurnOptions): SessionTurn;
  /**
   * `fixed` endpointing: the utterance is over and taken as a turn on `words` (a stream's, committed), or on its
   * audio transcribed when `words` is null.
   */
  fixedTurn(audio: Int16Array, speechEndAt: number, words: Promise<string> | null): void;
  /** A small event for a page (transcript, status). */
  event(e: { type: string } & Record<string, unknown>): void;
}

/** The words of the utterance so far taken at a pause, and the speculative turn started on them. */
interface Speculation {
  speechEndAt: number;
  sttSentAt: number;
  sttDoneAt: number;
  /** The words its turn started on. */
  text: string | null;
  /** The final words are known (a batch transcription, or a stream's commit answered): `text` holds them. */
  settled: boolean;
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
  /** Final words of its audio so far are awaited (overlap only), and how much audio they have. */
  checking: boolean;
  checkedMs: number;
  /** A stream's running words last judged (overlap only). */
  judged: string;
  /** It ended (`turn`) while a check was under way: the check decides it whole. */
  ended: { audio: Int16Array; speechEndAt: number } | null;
  spec: Speculation | null;
  /** Speech frames heard: a transcription taken at a pause is whole while this has not grown. */
  speechMs: number;
}

/**
 * When the caller has finished and whether speech over the agent interrupts it, for one media session.
 *
 * The words come from `UtteranceWords`: batch transcriptions of the audio, or a speech-to-text stream's running
 * transcript and its commits (realtime mode).
 *
 * Smart endpointing: at a pause of `min_silence_ms` the utterance's final words so far are asked for (transcribed,
 * or the stream committed) and a speculative turn starts on them (the model starts; nothing is stored or spoken);
 * with a stream it starts at once on the running words, and starts again on the final ones only if they differ
 * (case and punctuation aside). Final words that read as finished (`turnEnding`) commit it at `min_silence_ms` +
 * COMMIT_MARGIN_MS of silence, others at `max_silence_ms`; the caller going on first cancels it and the utterance
 * goes on whole, its words taken again at its next pause. Fixed endpointing: the utterance ends after
 * `end_of_turn_silence_ms` and its words are then taken.
 *
 * Speech over the agent's audio: with `min_speech_ms` 0 it cuts the agent at once. Otherwise, once that long, the
 * agent's audio is held and the speech judged by its words as it goes on (transcribed again every CHECK_EVERY_MS, or
 * a stream's words as they arrive): words that are not only `ignore_words` cut the agent (`clear`, reply marked
 * interrupted) and make a turn; only backchannels (or no words) once it paused (final words) let the agent go on,
 * and make no turn. Shorter speech over the agent never cuts it: its words make a turn after the reply unless they
 * are only backchannels.
 */
export class TurnTaking {
  readonly detector: TurnDetector;
  private u: Utterance | null = null;

  constructor(
    private readonly settings: VoiceSettings,
    private readonly host: TurnTakingHost,
    vad: VoiceActivityOptions,
    private readonly words: UtteranceWords,
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
    this.words.push(pcm);
    if (event?.type === 'pause') this.paused(event.audio, event.speechEndAt);
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
    this.words.end();
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
      judged: '',
      ended: null,
      spec: null,
      speechMs: 0,
    };
    this.words.begin();
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
      // Words read from a stream are committed now; batch ones are transcribed within the turn.
      const words = this.words.interim() === null ? null : this.words.final(audio);
      this.words.end();
      this.host.fixedTurn(audio, speechEndAt, words);
      return;
    }
    const spec = u.spec;
    if (spec?.text === '') this.drop(u);
    else if (spec && !spec.cancelled) {
      spec.final = true;
      this.maybeCommit(u, spec);
    } else this.speculate(u, audio, speechEndAt, true);
  }

  /**
   * Asks for the utterance's final words so far and starts a speculative turn on them; with a stream, at once on
   * the words heard so far.
   */
  private speculate(u: Utterance, audio: Int16Array, speechEndAt: number, final: boolean): void {
    const spec = this.spec(u, speechEndAt, performance.now(), 0);
    spec.final = final;
    const heard = this.words.interim();
    const words = this.words.final(audio, true);
    if (heard) {
      spec.sttDoneAt = spec.sttSentAt;
      this.begin(u, spec, heard, false);
    }
    void words.then((text) => {
      if (spec.cancelled || this.u !== u || u.spec !== spec) return;
      this.settle(u, spec, text);
    });
  }

  /**
   * The final words of a speculation are known. A turn started on the same words goes on (committed once the
   * silence is enough for them); on other words it starts again.
   */
  private settle(u: Utterance, spec: Speculation, text: string): void {
    if (!spec.turn || !sameWords(spec.text ?? '', text)) {
      spec.turn?.cancel();
      spec.turn = null;
      spec.sttDoneAt = performance.now();
      return this.begin(u, spec, text);
    }
    spec.settled = true;
    spec.waitMs = this.waitFor(text);
    this.maybeCommit(u, spec);
  }

  /** The silence a turn on these words waits for: short when they read as finished. */
  private waitFor(text: string): number {
    const { minSilenceMs, maxSilenceMs } = this.settings.endpointing;
    const ending = turnEnding(text, this.settings.language);
    return ending.complete ? Math.min(minSilenceMs + COMMIT_MARGIN_MS, maxSilenceMs) : maxSilenceMs;
  }

  /**
   * A speculation's turn starts (speculative) on its words, committed once they are final and the silence is
   * enough; `settled` false: words heard so far, their final ones to come.
   */
  private begin(u: Utterance, spec: Speculation, text: string, settled = true): void {
    spec.text = text;
    spec.settled = settled;
    if (!text) {
      // No words: nothing to answer; an utterance that ended is dropped, one still paused waits for more speech.
      if (spec.final) this.drop(u);
      return;
    }
    spec.waitMs = this.waitFor(text);
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
    if (!spec.turn || spec.cancelled || !spec.settled) return;
    const silence = this.detector.hearing ? this.detector.silenceMs : Infinity;
    if (!spec.final && silence < spec.waitMs) return;
    // The caller has finished: what follows is another utterance.
    this.u = null;
    this.words.end();
    if (!spec.final) this.detector.cut();
    spec.turn.commit();
    this.host.event({ type: 'transcript', role: 'customer', text: spec.text, final: true });
    this.host.event({ type: 'status', state: 'thinking' });
  }

  /** Speech over the agent: held once long enough, judged by its words as they come. */
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
    const heard = u.ended ? null : this.words.interim();
    if (heard !== null && heard !== u.judged) {
      u.judged = heard;
      // Words (not only backchannels) heard as they come cut the agent once it is held for them, final words
      // asked for or not.
      if (u.held && this.wordsIn(heard)) return this.interrupted(u);
    }
    if (u.checking || u.ended) return;
    const silence = this.detector.silenceMs;
    const grown = u.speechMs - u.checkedMs;
    const paused = silence >= OVERLAP_END_MS && grown > 0;
    // Batch: transcribed again as it goes on; a stream's words are read as they come.
    if ((heard === null && u.held && grown >= CHECK_EVERY_MS) || paused) this.check(u, this.detector.audio());
  }

  /** Whether the words are more than backchannels. */
  private wordsIn(text: string): boolean {
    const { ignoreWords } = this.settings.interruption;
    return text.trim() !== '' && !onlyBackchannels(text, ignoreWords, this.settings.language);
  }

  /**
   * Speech over the agent says more than backchannels (its running words): the agent is cut and the utterance goes
   * on as any other; one already paused is taken at once.
   */
  private interrupted(u: Utterance): void {
    u.overlap = false;
    u.held = false;
    this.host.interrupt();
    const paused = this.detector.silenceMs >= this.settings.endpointing.minSilenceMs;
    if (this.smart && paused && !u.spec)
      this.speculate(u, this.detector.audio(), this.detector.speechEndAt, false);
  }

  /** Asks for the final words of speech over the agent (so far, or whole once it ended) and judges it by them. */
  private check(u: Utterance, audio: Int16Array): void {
    u.checking = true;
    u.checkedMs = u.speechMs;
    const whole = !!u.ended || this.detector.silenceMs >= OVERLAP_END_MS;
    const sttSentAt = performance.now();
    void this.words.final(audio).then((text) => {
      const sttDoneAt = performance.now();
      u.checking = false;
      // Gone, or judged meanwhile by the words heard as they came (then an utterance as any other).
      if (this.u !== u || !u.overlap) return;
      const words = this.wordsIn(text);
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

  /** A speculation of the utterance, its words still to come. */
  private spec(u: Utterance, speechEndAt: number, sttSentAt: number, sttDoneAt: number): Speculation {
    const spec: Speculation = {
      speechEndAt,
      sttSentAt,
      sttDoneAt,
      text: null,
      settled: false,
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
    if (this.u === u) {
      this.u = null;
      this.words.end();
    }
    this.host.startTurn(text, { speechEndAt, sttSentAt, sttDoneAt });
    this.host.event({ type: 'transcript', role: 'customer', text, final: true });
    this.host.event({ type: 'status', state: 'thinking' });
  }

  /** The utterance makes no turn (no words, or only backchannels); `release`: the agent goes on if held for it. */
  private drop(u: Utterance, release = false): void {
    if (this.u !== u) return;
    this.u = null;
    this.words.end();
    if (this.detector.hearing) this.detector.cut();
    if (release && u.held) {
      u.held = false;
      this.host.release();
    }
  }
}
