import type { Ear } from './realtime-stt-server';
import { FRAME_SAMPLES, Heard, VoiceCorpus } from './voice-providers-corpus';

/** Samples of 24 kHz audio a 8 kHz sample is resampled to (PcmResampler: linear, the input samples kept). */
const UP = 3;
/** A frame quieter than this (RMS of its samples) is never a corpus frame (the corpus indexes none under -50 dB). */
const QUIET_RMS = 100;

/** A run of one corpus entry's frames in the item: where its frames are in the item's audio. */
interface Run extends Heard {
  /** A frame found by fingerprint: its position in the line audio and its frame number. */
  atSample: number;
  atFrame: number;
}

/**
 * Hears the corpus's recorded speech in an item of a realtime stream. The stream resamples the 8 kHz line audio to
 * 24 kHz keeping every input sample (every third output sample, an item starting on one), so every third sample
 * gives the line's samples back; their 20 ms frames are found by fingerprint (VoiceCorpus.frameAt) once their
 * alignment is, and an entry being played goes on frame after frame (its quiet frames too). Word `i` of a phrase
 * of `n` words over `L` frames ends at frame `first + ⌈(i + 1)·L/n⌉ - 1` (the last ones two frames before the
 * phrase's end): an item says the words whose end it holds, so that a batch transcription of the audio from the
 * phrase's start says the same words, and items cut anywhere in a phrase say each word once. The words heard are
 * updated every `everyMs` of audio (a delta each new word); `text` says all of them.
 */
export class CorpusEar implements Ear {
  private readonly runs: Run[] = [];
  private line = new Int16Array(8000);
  private length = 0;
  private phase = 0;
  /** Where the corpus's frames start in `line` (modulo a frame), once found; the next position to look at. */
  private offset: number | null = null;
  private next = 0;
  /** The sum of squares of the frame at `next` (while looking for where frames start). */
  private energy = 0;
  private sinceWords = 0;
  private shown: string[] = [];

  constructor(
    private readonly corpus: VoiceCorpus,
    private readonly everyMs = 100,
  ) {}

  /** The corpus frames the item holds, entry by entry. */
  get heard(): Heard[] {
    return this.runs.map(({ entry, first, last }) => ({ entry, first, last }));
  }

  push(pcm: Buffer): void {
    const n = pcm.length >> 1;
    for (let i = 0; i < n; i++) {
      if (this.phase === 0) this.append(pcm.readInt16LE(i * 2));
      this.phase = (this.phase + 1) % UP;
    }
    this.scan();
    this.sinceWords += n;
    const every = (this.everyMs * 24000) / 1000;
    if (this.sinceWords < every) return;
    this.sinceWords %= every;
    this.shown = words(this.text());
  }

  words(): string[] {
    return this.shown;
  }

  text(): string {
    return this.runs
      .flatMap((run) =>
        run.entry.segments.flatMap((s) => {
          const all = words(s.text);
          const frames = s.last - s.first + 1;
          return all.filter((_, i) => {
            const end = Math.min(s.first + Math.ceil(((i + 1) * frames) / all.length) - 1, s.last - 2);
            return end >= run.first && end <= run.last;
          });
        }),
      )
      .join(' ');
  }

  private append(sample: number): void {
    if (this.length === this.line.length) {
      const grown = new Int16Array(this.line.length * 2);
      grown.set(this.line);
      this.line = grown;
    }
    this.line[this.length++] = sample;
  }

  /** Looks at the frames come since the last look: first for where they start, then each whole frame. */
  private scan(): void {
    const line = this.line.subarray(0, this.length);
    const quiet = QUIET_RMS * QUIET_RMS * FRAME_SAMPLES;
    for (; this.next + FRAME_SAMPLES <= this.length; this.next += this.offset === null ? 1 : FRAME_SAMPLES) {
      const at = this.next;
      if (this.offset === null) {
        // The energy of the window at `at`, slid one sample on from the one before.
        if (at === 0) for (let i = 0; i < FRAME_SAMPLES; i++) this.energy += line[i] * line[i];
        else this.energy += line[at + FRAME_SAMPLES - 1] ** 2 - line[at - 1] ** 2;
        if (this.energy < quiet) continue;
      }
      const hit = this.corpus.frameAt(line, at);
      if (this.offset === null) {
        if (!hit) continue;
        this.offset = at % FRAME_SAMPLES;
      }
      const run = this.runs[this.runs.length - 1];
      const expected = run && run.atFrame + (at - run.atSample) / FRAME_SAMPLES;
      if (hit && !(run?.entry === hit.entry && hit.frame === expected)) {
        // The item's first run began with it (its quiet frames before the first one found included).
        const before = this.runs.length ? 0 : (at - this.offset) / FRAME_SAMPLES;
        const first = Math.max(0, hit.frame - before);
        this.runs.push({ entry: hit.entry, first, last: hit.frame, atSample: at, atFrame: hit.frame });
      } else if (run && expected < run.entry.payloads.length) run.last = expected;
    }
  }
}

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);
