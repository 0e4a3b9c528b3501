import { mulaw } from 'alawmulaw';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** 20 ms of 8 kHz audio, the frame of a Twilio Media Stream. */
export const FRAME_SAMPLES = 160;
const FRAME_MS = 20;
/** Frames quieter than this are not fingerprinted (pauses, digital silence: the same in every file). */
const QUIET_DB = -50;

export type CorpusKind = 'question' | 'paused' | 'backchannel' | 'interruption' | 'noise';

/** One file of test/fixtures/voice/corpus.json (written by scripts/voice-fixtures.sh), loaded. */
export interface CorpusEntry {
  /** The file name without directory and extension (`question-01`). */
  id: string;
  file: string;
  kind: CorpusKind;
  /** What is said ('' for noise). */
  text: string;
  durationMs: number;
  /** A paused question's two phrases, where its pause starts and how long it lasts. */
  parts?: [string, string];
  pauseStartMs?: number;
  pauseMs?: number;
  /** The audio as the far end hears it: 8 kHz PCM after the µ-law round trip of the line. */
  line: Int16Array;
  /** The audio as Media Stream `media` payloads: base64 µ-law, 20 ms each. */
  payloads: string[];
  /** The index of the last frame with speech in it (the caller's speech end). */
  lastSpeechFrame: number;
  /** Which frames say what: one segment, or a paused question's two. */
  segments: { text: string; first: number; last: number }[];
}

/** What a piece of received audio holds: frames first..last of a corpus entry. */
export interface Heard {
  entry: CorpusEntry;
  first: number;
  last: number;
}

export interface Recognition {
  text: string;
  audioMs: number;
  heard: Heard[];
}

interface Manifest {
  entries: {
    file: string;
    kind: CorpusKind;
    text: string;
    duration_ms: number;
    parts?: [string, string];
    pause_start_ms?: number;
    pause_ms?: number;
  }[];
}

export const CORPUS_DIR = path.resolve(__dirname, '../fixtures/voice');

/** The samples and rate of a 16-bit mono PCM WAV (chunks walked, so any header length), or null. */
export function readWav(file: Buffer): { rate: number; samples: Int16Array } | null {
  if (
    file.length < 12 ||
    file.toString('latin1', 0, 4) !== 'RIFF' ||
    file.toString('latin1', 8, 12) !== 'WAVE'
  )
    return null;
  let rate = 0;
  for (let at = 12; at + 8 <= file.length;) {
    const id = file.toString('latin1', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    if (id === 'fmt ') rate = file.readUInt32LE(at + 12);
    if (id === 'data') {
      const data = file.subarray(at + 8, Math.min(file.length, at + 8 + size));
      const samples = new Int16Array(Math.floor(data.length / 2));
      for (let i = 0; i < samples.length; i++) samples[i] = data.readInt16LE(i * 2);
      return rate ? { rate, samples } : null;
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

function frameDb(samples: Int16Array, from: number, length: number): number {
  let sum = 0;
  const end = Math.min(samples.length, from + length);
  for (let i = from; i < end; i++) sum += samples[i] * samples[i];
  const rms = end > from ? Math.sqrt(sum / (end - from)) / 32768 : 0;
  return rms > 0 ? Math.max(-100, 20 * Math.log10(rms)) : -100;
}

/** The energy of each 20 ms of audio at `rate`, in dBFS. */
function envelope(samples: Int16Array, rate: number): number[] {
  const size = Math.round((rate * FRAME_MS) / 1000);
  const out: number[] = [];
  for (let at = 0; at + size <= samples.length; at += size) out.push(frameDb(samples, at, size));
  return out;
}

const frameKey = (samples: Int16Array, from: number): string =>
  createHash('md5')
    .update(Buffer.from(samples.buffer, samples.byteOffset + from * 2, FRAME_SAMPLES * 2))
    .digest('base64');

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

/**
 * The latency corpus: every file ready to be played over a Media Stream, and a recogniser standing in for speech to
 * text. Since the service forwards the caller's frames untouched, each 20 ms frame of received audio is found by
 * its fingerprint (the frame's exact samples after the µ-law round trip); audio that was reworked (resampled,
 * filtered) is matched by its energy envelope instead. The answer is the words of the frames heard: a paused
 * question cut at its pause answers its first phrase only, a phrase heard in part its first words in proportion.
 */
export class VoiceCorpus {
  private readonly index = new Map<string, { entry: CorpusEntry; frame: number } | null>();
  private readonly envelopes = new Map<CorpusEntry, number[]>();

  private constructor(readonly entries: CorpusEntry[]) {
    for (const entry of entries) {
      const env = envelope(entry.line, 8000);
      this.envelopes.set(entry, env);
      env.forEach((db, frame) => {
        if (db < QUIET_DB) return;
        const key = frameKey(entry.line, frame * FRAME_SAMPLES);
        this.index.set(key, this.index.has(key) ? null : { entry, frame });
      });
    }
  }

  static load(dir = CORPUS_DIR): VoiceCorpus {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'corpus.json'), 'utf8')) as Manifest;
    return new VoiceCorpus(
      manifest.entries.map((e) => {
        const wav = readWav(fs.readFileSync(path.join(dir, e.file)));
        if (!wav || wav.rate !== 8000) throw new Error(`${e.file}: not an 8 kHz 16-bit mono WAV`);
        const frames = Math.ceil(wav.samples.length / FRAME_SAMPLES);
        const padded = new Int16Array(frames * FRAME_SAMPLES);
        padded.set(wav.samples);
        const encoded = mulaw.encode(padded);
        const line = mulaw.decode(encoded);
        const payloads = Array.from({ length: frames }, (_, i) =>
          Buffer.from(encoded.subarray(i * FRAME_SAMPLES, (i + 1) * FRAME_SAMPLES)).toString('base64'),
        );
        const env = envelope(line, 8000);
        const peak = Math.max(...env);
        let lastSpeechFrame = env.length - 1;
        while (lastSpeechFrame > 0 && env[lastSpeechFrame] < Math.max(QUIET_DB, peak - 35)) lastSpeechFrame--;
        const pauseFrame = Math.round((e.pause_start_ms ?? 0) / FRAME_MS);
        const resumeFrame = Math.round(((e.pause_start_ms ?? 0) + (e.pause_ms ?? 0)) / FRAME_MS);
        const segments = e.parts
          ? [
              { text: e.parts[0], first: 0, last: pauseFrame - 1 },
              { text: e.parts[1], first: resumeFrame, last: frames - 1 },
            ]
          : e.text
            ? [{ text: e.text, first: 0, last: frames - 1 }]
            : [];
        return {
          id: path.basename(e.file, '.wav'),
          file: e.file,
          kind: e.kind,
          text: e.text,
          durationMs: e.duration_ms,
          parts: e.parts,
          pauseStartMs: e.pause_start_ms,
          pauseMs: e.pause_ms,
          line,
          payloads,
          lastSpeechFrame,
          segments,
        };
      }),
    );
  }

  byId(id: string): CorpusEntry {
    const entry = this.entries.find((e) => e.id === id);
    if (!entry) throw new Error(`no corpus entry ${id}`);
    return entry;
  }

  ofKind(kind: CorpusKind): CorpusEntry[] {
    return this.entries.filter((e) => e.kind === kind);
  }

  /** What a recogniser would answer for this WAV: the words of the corpus frames it holds, in order. */
  recognize(file: Buffer): Recognition {
    const wav = readWav(file);
    if (!wav) return { text: '', audioMs: 0, heard: [] };
    const audioMs = (wav.samples.length / wav.rate) * 1000;
    const heard =
      (wav.rate === 8000 && this.byFingerprint(wav.samples)) || this.byEnvelope(wav.samples, wav.rate);
    return { text: this.textOf(heard), audioMs, heard };
  }

  /**
   * The words of the frames heard: a phrase heard to its end (but for the last two frames) whole, one heard in part
   * its first words in proportion.
   */
  textOf(heard: Heard[]): string {
    return heard
      .flatMap((h) =>
        h.entry.segments.map((s) => {
          const all = words(s.text);
          if (h.last < s.first || h.first > s.last) return '';
          if (h.last >= s.last - 2) return s.text;
          const share = (h.last - Math.max(h.first, s.first) + 1) / (s.last - s.first + 1);
          return all.slice(0, Math.floor(share * all.length)).join(' ');
        }),
      )
      .filter(Boolean)
      .join(' ');
  }

  /** The corpus frame whose exact samples start at `at` (8 kHz line audio), if any. */
  frameAt(samples: Int16Array, at: number): { entry: CorpusEntry; frame: number } | null {
    return this.index.get(frameKey(samples, at)) ?? null;
  }

  /** Frames found by fingerprint, at the first sample offset where any is found; runs per entry, in order. */
  private byFingerprint(samples: Int16Array): Heard[] | null {
    for (let offset = 0; offset < FRAME_SAMPLES; offset++) {
      const heard: Heard[] = [];
      for (let at = offset; at + FRAME_SAMPLES <= samples.length; at += FRAME_SAMPLES) {
        const hit = this.index.get(frameKey(samples, at));
        if (!hit) continue;
        const run = heard[heard.length - 1];
        if (run?.entry === hit.entry && hit.frame >= run.last) run.last = hit.frame;
        else heard.push({ entry: hit.entry, first: hit.frame, last: hit.frame });
      }
      if (heard.length) return heard;
    }
    return null;
  }

  /** The entry and alignment whose energy envelope is closest (mean difference under 6 dB over its loud frames). */
  private byEnvelope(samples: Int16Array, rate: number): Heard[] {
    const got = envelope(samples, rate).map((db) => Math.max(db, QUIET_DB));
    let best = { cost: 6, heard: [] as Heard[] };
    for (const [entry, env] of this.envelopes) {
      for (let shift = -got.length + 1; shift < env.length; shift++) {
        // Entry frame j is received frame j - shift.
        const first = Math.max(0, shift);
        const last = Math.min(env.length, got.length + shift) - 1;
        let cost = 0;
        let loud = 0;
        for (let j = first; j <= last; j++) {
          if (env[j] < QUIET_DB && got[j - shift] <= QUIET_DB) continue;
          cost += Math.abs(Math.max(env[j], QUIET_DB) - got[j - shift]);
          loud += 1;
        }
        if (loud >= 10 && cost / loud < best.cost)
          best = { cost: cost / loud, heard: [{ entry, first, last }] };
      }
    }
    return best.heard;
  }
}
