import { performance } from 'node:perf_hooks';
import { onlyBackchannels } from './end-of-turn';
import type { VoiceSettings } from './media-session.types';
import type { TurnDetector } from './turn-detector';
import type { UtteranceWords } from './utterance-words';

/**
 * While speech over the agent is undecided, its words so far are transcribed again after this much more audio (in
 * batch; a stream's words are read as they arrive).
 */
const CHECK_EVERY_MS = 200;
/** Speech over the agent is judged whole once it paused this long (its last words are in the audio). */
const OVERLAP_END_MS = 100;

/** An utterance's speech over the agent's audio, while it is judged (and after: `open` false). */
export interface Overlap {
  /** Started over the agent's speech and not yet judged: a backchannel until its words say otherwise. */
  open: boolean;
  /** The agent's audio is held for it. */
  held: boolean;
  /** Final words of its audio so far are awaited, and how much speech they have. */
  checking: boolean;
  checkedMs: number;
  /** A stream's running words last judged. */
  judged: string;
  /** It ended (`turn`) while a check was under way: the check decides it whole. */
  ended: { audio: Int16Array; speechEndAt: number } | null;
  /** Speech frames heard: a transcription taken at a pause is whole while this has not grown. */
  speechMs: number;
}

/** What the judge asks of the session's agent audio and page. */
export interface OverlapHost {
  /** The agent's audio is playing, or held for speech over it. */
  speaking(): boolean;
  /** Stops sending the agent's audio, keeping it (speech over it may be a backchannel). */
  hold(): void;
  /** Goes on with the held audio: the speech over it was a backchannel. */
  release(): void;
  /** The caller interrupts: the agent's audio is cut (`clear`) and its reply marked interrupted. */
  interrupt(): void;
  event(e: { type: string } & Record<string, unknown>): void;
}

/** What becomes of the utterance once its speech over the agent is judged: turn-taking's part. */
export interface OverlapTurns {
  /** Whether `over` is still the speech of the utterance being heard. */
  current(over: Overlap): boolean;
  /** Its words, heard as they came, cut the agent: the utterance goes on as any other. */
  interrupted(over: Overlap): void;
  /**
   * Its final words cut the agent: `whole`, they hold all its speech (a turn on them: taken if it `ended`, else
   * speculative); otherwise the words of a part, and an utterance that `ended` is taken as any other.
   */
  words(
    over: Overlap,
    text: string,
    whole: boolean,
    ended: Overlap['ended'],
    stt: { sentAt: number; doneAt: number },
  ): void;
  /** Only backchannels, or no words: no turn (the agent goes on: `release`). */
  dropped(over: Overlap): void;
}

/**
 * Whether speech over the agent's audio interrupts it, for one media session. With `min_speech_ms` 0 it cuts the
 * agent at once. Otherwise, once that long, the agent's audio is held and the speech judged by its words as it goes
 * on (transcribed again every CHECK_EVERY_MS, or a stream's words as they arrive): words that are not only
 * `ignore_words` cut the agent (`clear`, reply marked interrupted) and make a turn; only backchannels (or no words)
 * once it paused (final words) let the agent go on, and make no turn. Shorter speech over the agent never cuts it:
 * its words make a turn after the reply unless they are only backchannels.
 */
export class OverlapJudge {
  constructor(
    private readonly settings: VoiceSettings,
    private readonly detector: TurnDetector,
    private readonly words: UtteranceWords,
    private readonly host: OverlapHost,
    private readonly turns: OverlapTurns,
  ) {}

  /** An utterance starts: over the agent's audio (to be judged) when the agent speaks and may be interrupted. */
  overlap(): Overlap {
    return {
      open: this.host.speaking() && this.settings.interruptible,
      held: false,
      checking: false,
      checkedMs: 0,
      judged: '',
      ended: null,
      speechMs: 0,
    };
  }

  /** The utterance's words are read from now on: with `min_speech_ms` 0 speech over the agent cuts it at once. */
  started(over: Overlap): void {
    if (over.open && this.settings.interruption.minSpeechMs === 0) {
      over.open = false;
      this.host.interrupt();
    }
  }

  /** The utterance's next frame while its speech over the agent is undecided: held once long enough, judged. */
  push(over: Overlap): void {
    over.speechMs = this.detector.speechMs || over.speechMs;
    const { minSpeechMs, ignoreWords } = this.settings.interruption;
    const long = over.speechMs >= minSpeechMs && this.detector.audible;
    if (long && !over.held && this.host.speaking()) {
      if (!ignoreWords.length) {
        over.open = false;
        this.host.interrupt();
        return;
      }
      over.held = true;
      this.host.hold();
    }
    const heard = over.ended ? null : this.words.interim();
    if (heard !== null && heard !== over.judged) {
      over.judged = heard;
      // Words (not only backchannels) heard as they come cut the agent once it is held for them, final words
      // asked for or not.
      if (over.held && this.wordsIn(heard)) return this.interrupted(over);
    }
    if (over.checking || over.ended) return;
    const silence = this.detector.silenceMs;
    const grown = over.speechMs - over.checkedMs;
    const paused = silence >= OVERLAP_END_MS && grown > 0;
    // Batch: transcribed again as it goes on; a stream's words are read as they come.
    if ((heard === null && over.held && grown >= CHECK_EVERY_MS) || paused)
      this.check(over, this.detector.audio());
  }

  /** The utterance ended while its speech over the agent is undecided: its final words judge it whole. */
  ended(over: Overlap, audio: Int16Array, speechEndAt: number): void {
    over.ended = { audio, speechEndAt };
    if (!over.checking) this.check(over, audio);
  }

  /** The utterance makes no turn: the agent goes on if it was held for it. */
  release(over: Overlap): void {
    if (!over.held) return;
    over.held = false;
    this.host.release();
  }

  /** Whether the words are more than backchannels. */
  private wordsIn(text: string): boolean {
    const { ignoreWords } = this.settings.interruption;
    return text.trim() !== '' && !onlyBackchannels(text, ignoreWords, this.settings.language);
  }

  /** Speech over the agent says more than backchannels (its running words): the agent is cut. */
  private interrupted(over: Overlap): void {
    over.open = false;
    over.held = false;
    this.host.interrupt();
    this.turns.interrupted(over);
  }

  /** Asks for the final words of speech over the agent (so far, or whole once it ended) and judges it by them. */
  private check(over: Overlap, audio: Int16Array): void {
    over.checking = true;
    over.checkedMs = over.speechMs;
    const whole = !!over.ended || this.detector.silenceMs >= OVERLAP_END_MS;
    const sentAt = performance.now();
    void this.words.final(audio).then((text) => {
      const doneAt = performance.now();
      over.checking = false;
      // Gone, or judged meanwhile by the words heard as they came (then an utterance as any other).
      if (!this.turns.current(over) || !over.open) return;
      const words = this.wordsIn(text);
      // Whole: the audio transcribed holds all the speech (no speech came after it).
      const checkedWhole = whole && over.speechMs === over.checkedMs;
      // The detector let the utterance go (too short or quiet for a turn): only an interruption was at stake.
      const gone = !this.detector.hearing && !over.ended;
      if (words) {
        over.open = false;
        if (over.held) {
          over.held = false;
          this.host.interrupt();
        }
        const ended = over.ended;
        over.ended = null;
        return this.turns.words(over, text, checkedWhole, ended, { sentAt, doneAt });
      }
      if (checkedWhole || gone) {
        if (text.trim()) this.host.event({ type: 'backchannel', text });
        return this.turns.dropped(over);
      }
      if (over.ended) this.check(over, over.ended.audio);
    });
  }
}
