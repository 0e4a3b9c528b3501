import { performance } from 'node:perf_hooks';
import { turnEnding } from './end-of-turn';
import type { SessionTurn, StartTurnOptions, VoiceSettings } from './media-session.types';
import { Overlap, OverlapHost, OverlapJudge } from './overlap-judge';
import { TurnDetector } from './turn-detector';
import type { UtteranceWords } from './utterance-words';
import { sameWords } from './utterance-words';
import type { VoiceActivityOptions } from './vad';

/** A finished-looking turn is committed after this much more silence than `min_silence_ms`. */
export const COMMIT_MARGIN_MS = 100;
/**
 * With a speech-to-text stream, a reply starts on the words heard once the caller has been silent this long (one
 * frame) when they read as finished: before the pause of `min_silence_ms` that commits them.
 */
export const PREEMPT_MS = 20;

/** What turn-taking asks of the session it serves (the agent's audio for speech over it: `OverlapJudge`). */
export interface TurnTakingHost extends OverlapHost {
  /** A customer turn on the words; speculative ones wait for `commit`. */
  startTurn(text: string, options: StartTurnOptions): SessionTurn;
  /**
   * `fixed` endpointing: the utterance is over and taken as a turn on `words` (a stream's, committed), or on its
   * audio transcribed when `words` is null.
   */
  fixedTurn(audio: Int16Array, speechEndAt: number, words: Promise<string> | null): void;
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
  /** Started at a hush on the words heard: its final words are asked for at the pause. */
  early: boolean;
}

/** The utterance being heard. */
interface Utterance {
  /** Its speech over the agent's audio (`open` while judged by `OverlapJudge`). */
  over: Overlap;
  spec: Speculation | null;
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
 * (case and punctuation aside); running words that read as finished start it earlier, at the first silent frame
 * (PREEMPT_MS), the pause then only asking for their final words. Final words that read as finished (`turnEnding`)
 * commit it at `min_silence_ms` + COMMIT_MARGIN_MS of silence, others at `max_silence_ms`; the caller going on first
 * cancels it and the utterance goes on whole, its words taken again at its next pause. Fixed endpointing: the utterance ends after
 * `end_of_turn_silence_ms` and its words are then taken.
 *
 * Speech over the agent's audio is judged by `OverlapJudge` (hold, interruption or backchannel); once judged an
 * interruption it is an utterance as any other, a backchannel makes no turn.
 */
export class TurnTaking {
  readonly detector: TurnDetector;
  private readonly judge: OverlapJudge;
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
      hushMs: smart ? PREEMPT_MS : null,
      vad,
    });
    this.judge = new OverlapJudge(settings, this.detector, words, host, {
      current: (over) => this.u?.over === over,
      interrupted: (over) => this.interrupted(over),
      words: (over, text, whole, ended, stt) => this.overlapWords(over, text, whole, ended, stt),
      dropped: (over) => {
        if (this.u?.over === over) this.drop(this.u, true);
      },
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
    if (event?.type === 'hush') this.hushed(event.speechEndAt);
    else if (event?.type === 'pause') this.paused(event.audio, event.speechEndAt);
    else if (event?.type === 'resume') this.resumed();
    else if (event?.type === 'turn') this.ended(event.audio, event.speechEndAt);
    const u = this.u;
    if (!u) return;
    // Too short or too quiet to be a turn: the detector let it go.
    if (!this.detector.hearing && !u.over.ended && !u.spec && !u.over.checking) return this.drop(u, true);
    if (u.over.open) this.judge.push(u.over);
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
    if (this.u) this.judge.release(this.u.over); // an utterance left undecided does not keep the agent held
    this.host.event({ type: 'status', state: 'listening' });
    this.u = { over: this.judge.overlap(), spec: null };
    this.words.begin();
    this.judge.started(this.u.over);
  }

  /**
   * The caller fell silent: running words that read as finished start a speculative turn now, their final words
   * asked for at the pause (the stream's segment is not committed at every short gap between words).
   */
  private hushed(speechEndAt: number): void {
    const u = this.u;
    if (!u || u.over.open || u.spec) return;
    const heard = this.words.interim();
    if (!heard || !turnEnding(heard, this.settings.language).complete) return;
    const now = performance.now();
    const spec = this.spec(u, speechEndAt, now, now);
    spec.early = true;
    this.begin(u, spec, heard, false);
  }

  private paused(audio: Int16Array, speechEndAt: number): void {
    const u = this.u;
    if (!u || u.over.open) return; // speech over the agent is judged by the judge
    const spec = u.spec;
    // Started at the hush on the same words: only their final words are asked for now. Words heard since: the turn
    // starts again on them.
    if (spec?.early && !spec.cancelled) {
      if (sameWords(spec.text ?? '', this.words.interim() ?? '')) return this.askFinal(u, spec, audio);
      this.abandon(u, spec);
    }
    this.speculate(u, audio, speechEndAt, false);
  }

  private resumed(): void {
    const u = this.u;
    const spec = u?.spec;
    if (!u || !spec) return;
    this.abandon(u, spec);
    this.host.event({ type: 'status', state: 'listening' });
  }

  /** The turn started on the words so far leaves no trace (the caller went on, or said more since). */
  private abandon(u: Utterance, spec: Speculation): void {
    spec.cancelled = true;
    spec.turn?.cancel();
    u.spec = null;
  }

  private ended(audio: Int16Array, speechEndAt: number): void {
    const u = this.u;
    if (!u) return;
    if (u.over.open) return this.judge.ended(u.over, audio, speechEndAt);
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
      // Ended before a pause was reported (`max_silence_ms` no longer than `min_silence_ms`): its final words now.
      if (spec.early) this.askFinal(u, spec, audio);
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
    this.settleLater(u, spec, words);
  }

  /** A speculation started at the hush asks for the final words of the utterance so far. */
  private askFinal(u: Utterance, spec: Speculation, audio: Int16Array): void {
    spec.early = false;
    this.settleLater(u, spec, this.words.final(audio, true));
  }

  /** The speculation settles on these final words when they come, unless it ended first. */
  private settleLater(u: Utterance, spec: Speculation, words: Promise<string>): void {
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

  /** Speech over the agent cut it on the words heard as they came: an utterance already paused is taken at once. */
  private interrupted(over: Overlap): void {
    const u = this.u;
    if (u?.over !== over) return;
    const paused = this.detector.silenceMs >= this.settings.endpointing.minSilenceMs;
    if (this.smart && paused && !u.spec)
      this.speculate(u, this.detector.audio(), this.detector.speechEndAt, false);
  }

  /**
   * Speech over the agent cut it on its final words: whole, they make a turn (taken if it ended, else speculative);
   * a part's, the utterance goes on as any other (taken as any other if it ended).
   */
  private overlapWords(
    over: Overlap,
    text: string,
    whole: boolean,
    ended: Overlap['ended'],
    stt: { sentAt: number; doneAt: number },
  ): void {
    const u = this.u;
    if (u?.over !== over) return;
    if (whole && ended) return this.taken(u, text, ended.speechEndAt, stt.sentAt, stt.doneAt);
    if (whole && this.smart)
      return this.begin(u, this.spec(u, this.detector.speechEndAt, stt.sentAt, stt.doneAt), text);
    if (ended) this.ended(ended.audio, ended.speechEndAt);
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
      early: false,
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
    if (release) this.judge.release(u.over);
  }
}
