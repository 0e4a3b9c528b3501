import type { SessionTurn, StartTurnOptions, VoiceSettings } from './media-session.types';
import { COMMIT_MARGIN_MS, PREEMPT_MS, TurnTaking, TurnTakingHost } from './turn-taking';
import type { UtteranceWords } from './utterance-words';
import { sine } from './vad/synthetic-audio';

const FRAME = 160; // 20 ms at 8 kHz
const tone = (amplitude: number, index: number) => sine(FRAME, amplitude, 440, 8000, index * FRAME);

const SETTINGS: VoiceSettings = {
  endOfTurnSilenceMs: 700,
  endpointing: { mode: 'smart', minSilenceMs: 60, maxSilenceMs: 1500 },
  interruptible: true,
  interruption: { minSpeechMs: 300, ignoreWords: [] },
  streamSpeech: true,
  voice: null,
  speed: 1,
  language: 'en',
};

/** A call's words as a speech-to-text stream gives them: running words set by the test, final words on commit. */
class StreamWords implements UtteranceWords {
  heard = '';
  /** The final words a commit answers (the running ones by default). */
  finalWords: string | null = null;
  commits = 0;
  begin(): void {}
  push(): void {}
  interim(): string | null {
    return this.heard;
  }
  final(): Promise<string> {
    this.commits += 1;
    return Promise.resolve(this.finalWords ?? this.heard);
  }
  end(): void {}
}

interface Started {
  text: string;
  options: StartTurnOptions;
  committed: boolean;
  cancelled: boolean;
}

function setup() {
  const words = new StreamWords();
  const turns: Started[] = [];
  const host: TurnTakingHost = {
    speaking: () => false,
    hold: () => undefined,
    release: () => undefined,
    interrupt: () => undefined,
    event: () => undefined,
    fixedTurn: () => undefined,
    startTurn(text, options): SessionTurn {
      const t: Started = { text, options, committed: false, cancelled: false };
      turns.push(t);
      return {
        commit: () => void (t.committed = true),
        cancel: () => void (t.cancelled = true),
        done: Promise.resolve('answered'),
      };
    },
  };
  const taking = new TurnTaking(SETTINGS, host, { engine: 'energy', sampleRate: 8000 }, words);
  let index = 0;
  const feed = async (amplitude: number, ms: number) => {
    for (let i = 0; i < ms / 20; i++) {
      taking.push(tone(amplitude, index++));
      await Promise.resolve(); // final words answer between frames
    }
  };
  return { words, turns, taking, feed };
}

/** Quiet lead-in, then 600 ms of speech. */
async function spoken(s: ReturnType<typeof setup>, words: string) {
  await s.feed(20, 1000);
  s.words.heard = words;
  await s.feed(8000, 600);
}

describe('TurnTaking with a speech-to-text stream: a reply starts at the first silent frame', () => {
  it('running words that read as finished start a speculative turn before the pause; the pause commits the words', async () => {
    const s = setup();
    await spoken(s, 'What time do you open tomorrow?');
    await s.feed(20, PREEMPT_MS);
    expect(s.turns).toEqual([
      expect.objectContaining({ text: 'What time do you open tomorrow?', committed: false }),
    ]);
    expect(s.turns[0].options.speculative).toBe(true);
    expect(s.words.commits).toBe(0); // the stream's segment is committed at the pause only
    await s.feed(20, SETTINGS.endpointing.minSilenceMs - PREEMPT_MS);
    expect(s.words.commits).toBe(1);
    expect(s.turns[0].committed).toBe(false); // more silence needed than the pause
    await s.feed(20, COMMIT_MARGIN_MS + 20);
    expect(s.turns).toHaveLength(1);
    expect(s.turns[0]).toMatchObject({ committed: true, cancelled: false });
  });

  it('words that do not read as finished wait for the pause, as before', async () => {
    const s = setup();
    await spoken(s, 'I would like to book an appointment for');
    await s.feed(20, PREEMPT_MS);
    expect(s.turns).toEqual([]);
    await s.feed(20, SETTINGS.endpointing.minSilenceMs - PREEMPT_MS);
    expect(s.turns).toHaveLength(1);
    expect(s.words.commits).toBe(1);
  });

  it('the caller going on cancels the early turn without asking for final words', async () => {
    const s = setup();
    await spoken(s, 'I need a table.');
    await s.feed(20, PREEMPT_MS);
    expect(s.turns).toHaveLength(1);
    await s.feed(8000, 100);
    expect(s.turns[0]).toMatchObject({ cancelled: true, committed: false });
    expect(s.words.commits).toBe(0);
  });

  it('words heard after the hush start the turn again at the pause; final words that differ start it again', async () => {
    const s = setup();
    await spoken(s, 'I need a table.');
    await s.feed(20, PREEMPT_MS);
    s.words.heard = 'I need a table for two.';
    s.words.finalWords = 'I need a table for four.';
    await s.feed(20, SETTINGS.endpointing.minSilenceMs - PREEMPT_MS);
    await s.feed(20, COMMIT_MARGIN_MS + 40);
    expect(s.turns.map((t) => [t.text, t.committed, t.cancelled])).toEqual([
      ['I need a table.', false, true],
      ['I need a table for two.', false, true],
      ['I need a table for four.', true, false],
    ]);
    expect(s.words.commits).toBe(1);
  });
});
