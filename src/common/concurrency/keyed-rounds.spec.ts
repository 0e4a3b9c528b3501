import { KeyedRounds } from './keyed-rounds';

describe('KeyedRounds', () => {
  it('runs one round per key at a time and folds calls made meanwhile into one more round', async () => {
    const rounds = new KeyedRounds();
    const seen: string[] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    let n = 0;
    const round = async () => {
      n += 1;
      seen.push(`a${n}`);
      if (n === 1) await first;
    };
    const running = rounds.run('a', round);
    // Three calls while the first round waits: they answer at once and ask for one more round only.
    await Promise.all([rounds.run('a', round), rounds.run('a', round), rounds.run('a', round)]);
    // Another key is not held back.
    await rounds.run('b', async () => void seen.push('b'));
    release();
    await running;
    expect(seen).toEqual(['a1', 'b', 'a2']);
    // Idle again: the next call runs a round of its own.
    await rounds.run('a', round);
    expect(seen).toEqual(['a1', 'b', 'a2', 'a3']);
  });

  it('lets a failed round end the run, and the next call starts afresh', async () => {
    const rounds = new KeyedRounds();
    await expect(rounds.run('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    let ran = false;
    await rounds.run('k', async () => void (ran = true));
    expect(ran).toBe(true);
  });
});
