import { joinChunks, mergeTracks, plainText } from './transcript-merge';

const t = (segments: [number, number, string][], duration: number | null = null) => ({
  text: segments.map((s) => s[2]).join(' '),
  language: 'en',
  duration,
  segments: segments.map(([start, end, text]) => ({ start, end, text })),
});

describe('transcript merge', () => {
  it('offsets chunk segments back into the whole audio', () => {
    const joined = joinChunks([
      { offset: 0, transcript: t([[1, 2, 'a']], 600) },
      { offset: 600, transcript: t([[0.5, 1.25, 'b']], 30) },
    ]);
    expect(joined.segments).toEqual([
      { start: 1, end: 2, text: 'a' },
      { start: 600.5, end: 601.25, text: 'b' },
    ]);
    expect(joined).toMatchObject({ text: 'a b', duration: 630, language: 'en' });
  });

  it('merges two tracks by start time and labels speakers; one track is unknown', () => {
    const merged = mergeTracks(
      t([
        [0, 1, 'hi'],
        [4, 5, 'bye'],
      ]),
      t([
        [2, 3, 'hello'],
        [4, 4.5, ' '],
      ]),
    );
    expect(merged.map((s) => [s.id, s.speaker, s.text])).toEqual([
      [0, 'agent', 'hi'],
      [1, 'customer', 'hello'],
      [2, 'agent', 'bye'],
    ]);
    expect(plainText(merged)).toBe('Agent: hi\nCustomer: hello\nAgent: bye');
    expect(mergeTracks(t([[0, 1, 'x']]), null)).toEqual([
      { id: 0, start: 0, end: 1, speaker: 'unknown', text: 'x' },
    ]);
  });
});
