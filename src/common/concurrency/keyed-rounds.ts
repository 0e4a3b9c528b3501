/**
 * One round of work per key at a time in this process: a call that comes while a round of its key runs only asks
 * for one more round, which starts as soon as the running one ends, so a burst of calls costs a few rounds, each
 * seeing everything that happened before it started (a claim then takes every slot freed meanwhile).
 */
export class KeyedRounds {
  private readonly running = new Map<string, { again: boolean }>();

  /** Runs rounds for `key` until none was asked for meanwhile; for a key already running, answers at once. */
  async run(key: string, round: () => Promise<void>): Promise<void> {
    const busy = this.running.get(key);
    if (busy) {
      busy.again = true;
      return;
    }
    const me = { again: true };
    this.running.set(key, me);
    try {
      while (me.again) {
        me.again = false;
        await round();
      }
    } finally {
      this.running.delete(key);
    }
  }
}
