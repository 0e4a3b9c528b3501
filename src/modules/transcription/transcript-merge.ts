import type { SpeechSegment, TimedTranscript } from '@/providers/transcription/transcription.port';

export type Speaker = 'agent' | 'customer' | 'unknown';

export interface StoredSegment {
  id: number;
  start: number;
  end: number;
  speaker: Speaker;
  text: string;
}

const round = (s: number) => Math.round(s * 1000) / 1000;

/** The transcripts of a file's chunks as one, segment times moved by each chunk's offset. */
export function joinChunks(parts: Array<{ offset: number; transcript: TimedTranscript }>): TimedTranscript {
  const segments: SpeechSegment[] = [];
  let duration = 0;
  let language: string | null = null;
  for (const { offset, transcript } of parts) {
    language ??= transcript.language;
    for (const s of transcript.segments)
      segments.push({ start: round(s.start + offset), end: round(s.end + offset), text: s.text });
    duration = Math.max(duration, offset + (transcript.duration ?? transcript.segments.at(-1)?.end ?? 0));
  }
  return {
    text: parts
      .map((p) => p.transcript.text)
      .filter(Boolean)
      .join(' '),
    language,
    duration: round(duration),
    segments,
  };
}

/**
 * One track's segments as `unknown`, or two tracks merged by start time (`agent` first on a tie), numbered from 0.
 * Empty segments are dropped.
 */
export function mergeTracks(agent: TimedTranscript, customer: TimedTranscript | null): StoredSegment[] {
  const tagged = [
    ...agent.segments.map((s) => ({ ...s, speaker: (customer ? 'agent' : 'unknown') as Speaker })),
    ...(customer?.segments ?? []).map((s) => ({ ...s, speaker: 'customer' as Speaker })),
  ].filter((s) => s.text.trim());
  tagged.sort((a, b) => a.start - b.start || a.end - b.end || (a.speaker === 'agent' ? -1 : 1));
  return tagged.map((s, id) => ({ id, start: s.start, end: s.end, speaker: s.speaker, text: s.text.trim() }));
}

/** The transcript's plain text: one line per segment, prefixed by its speaker when known. */
export function plainText(segments: StoredSegment[]): string {
  return segments
    .map((s) =>
      s.speaker === 'unknown' ? s.text : `${s.speaker === 'agent' ? 'Agent' : 'Customer'}: ${s.text}`,
    )
    .join('\n');
}
