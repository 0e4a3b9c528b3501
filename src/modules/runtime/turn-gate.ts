/**
 * A turn taken live, while the customer may still be speaking (a call): its reply streamed, the turn cancellable,
 * and speculative when it has a `commit`.
 */
export interface LiveTurn {
  /** Streams the model's reply as it is generated (a call speaks it sentence by sentence); held until the commit. */
  onDelta?: (text: string) => void;
  /**
   * Cancels the turn. Before the commit nothing of it is stored (no customer or agent message, session, event or tool
   * call; no rule acts, no tool runs), its model request is aborted and the turn rejects with TurnCancelled. After the
   * commit (the customer speaking over the reply) only the streaming stops: the turn ends as usual, its reply stored.
   */
  signal?: AbortSignal;
  /**
   * Makes the turn speculative: the customer's message is written once this resolves (a rejection cancels the turn).
   * The reads, the rules and the model start at once; the streamed reply is held until then. Without it the turn is
   * committed from the start.
   */
  commit?: Promise<void>;
}

/** A live turn cancelled before its commit: it left nothing behind. Not a failure. */
export class TurnCancelled extends Error {
  constructor() {
    super('The turn was cancelled before it was committed');
    this.name = 'TurnCancelled';
  }
}

/**
 * The commit of one live turn: `opened` resolves once the turn is committed and rejects with TurnCancelled when it
 * is cancelled first; `signal` (speculative turns only) aborts the turn's model requests on a cancel before the
 * commit, and is never aborted after it; `deliver` holds the streamed reply until the commit, then passes it on
 * until the caller's signal aborts.
 */
export class TurnGate {
  readonly opened: Promise<void>;
  /** Whether the customer's message waits for the commit. */
  readonly speculative: boolean;
  private readonly speculation = new AbortController();
  private state: 'pending' | 'committed' | 'cancelled';
  private held: string[] = [];
  private detach = (): void => undefined;

  constructor(private readonly live: LiveTurn) {
    const { signal, commit } = live;
    this.speculative = !!commit;
    if (!commit) {
      this.state = 'committed';
      this.opened = Promise.resolve();
      return;
    }
    this.state = 'pending';
    this.opened = new Promise<void>((resolve, reject) => {
      const cancel = () => {
        if (this.state !== 'pending') return;
        this.state = 'cancelled';
        this.held = [];
        this.detach();
        this.speculation.abort();
        reject(new TurnCancelled());
      };
      if (signal?.aborted) return cancel();
      signal?.addEventListener('abort', cancel, { once: true });
      this.detach = () => signal?.removeEventListener('abort', cancel);
      commit.then(() => {
        if (this.state !== 'pending') return;
        if (signal?.aborted) return cancel();
        this.state = 'committed';
        this.detach();
        const held = this.held;
        this.held = [];
        for (const delta of held) this.live.onDelta?.(delta);
        resolve();
      }, cancel);
    });
    this.opened.catch(() => undefined); // the turn awaits it through its customer message write
  }

  /** Aborts the model requests of a speculative turn cancelled before its commit. */
  get signal(): AbortSignal | undefined {
    return this.speculative ? this.speculation.signal : undefined;
  }

  /** Whether the turn streams its reply. */
  get streams(): boolean {
    return !!this.live.onDelta;
  }

  /** A piece of the streamed reply: held before the commit, passed on after it, dropped once cancelled. */
  deliver(delta: string): void {
    if (this.state === 'cancelled' || this.live.signal?.aborted) return;
    if (this.state === 'pending') this.held.push(delta);
    else this.live.onDelta?.(delta);
  }
}
