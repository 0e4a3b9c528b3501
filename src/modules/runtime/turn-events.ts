import type { MessageResponse, TurnAction, TurnResponse } from '@/modules/conversations/dto/responses';

/**
 * What a turn reports as it runs, in order: `text` as the model writes the reply (when asked for), `message` for each
 * message stored (the customer's, a tool call's record, the agent's reply or a rule's words), `tool-call` as each of
 * the agent's tools is recorded, `action` when a rule or a tool decides one, and last `end` with the outcome. `R` is
 * the outcome (a call's turn answers the call with it).
 */
export type TurnEvent<R = TurnResponse> =
  TextEvent | ToolCallEvent | ActionEvent | MessageEvent | { type: 'end'; turn: R };

/** A piece of the reply as the model writes it (held until a speculative turn's commit; none once its signal aborted). */
export interface TextEvent {
  type: 'text';
  delta: string;
}

/** One of the agent's tools was called and its record stored (the `tool` message that follows carries it). */
export interface ToolCallEvent {
  type: 'tool-call';
  /** The intent's key. */
  name: string;
  parameters: Record<string, unknown>;
  status: string;
  result: unknown;
  duration_ms: number;
  /** The record's message. */
  message_uuid: string;
}

/** A guard or routing rule fired, or a tool handed the conversation over: what the caller is to do. */
export interface ActionEvent {
  type: 'action';
  action: TurnAction;
}

/** A message of the turn, once stored. */
export interface MessageEvent {
  type: 'message';
  message: MessageResponse;
}

/** The events of a turn before its end. */
export type TurnProgress = Exclude<TurnEvent, { type: 'end' }>;

/**
 * The events of one turn for one reader: pushed as they happen (never waiting for the reader), read in order; the
 * producer's failure is thrown to the reader after the events pushed before it. A reader that stops (`break`) only
 * stops listening: what produces the events runs on, and what it pushes later is dropped.
 */
export class EventQueue<T> implements AsyncIterableIterator<T> {
  private items: T[] = [];
  private waiting: { resolve: (r: IteratorResult<T>) => void; reject: (err: unknown) => void } | null = null;
  private state: 'open' | 'closed' | 'failed' | 'left' = 'open';
  private error = new Error('The turn failed');

  push(item: T): void {
    if (this.state !== 'open') return;
    const waiting = this.waiting;
    if (!waiting) {
      this.items.push(item);
      return;
    }
    this.waiting = null;
    waiting.resolve({ value: item, done: false });
  }

  /** No more events: the reader ends after those pushed. */
  close(): void {
    if (this.state !== 'open') return;
    this.state = 'closed';
    this.settle();
  }

  /** The producer failed: the reader gets `err` after the events pushed. */
  fail(err: unknown): void {
    if (this.state !== 'open') return;
    this.state = 'failed';
    this.error = err instanceof Error ? err : new Error(String(err));
    this.settle();
  }

  private settle(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = null;
    if (this.state === 'failed') {
      this.state = 'closed';
      waiting.reject(this.error);
    } else waiting.resolve({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length) return Promise.resolve({ value: this.items.shift()!, done: false });
    if (this.state === 'failed') {
      this.state = 'closed';
      return Promise.reject(this.error);
    }
    if (this.state !== 'open') return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  return(): Promise<IteratorResult<T>> {
    this.state = 'left';
    this.items = [];
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

/**
 * Runs `run` at once and answers its events: what it reports through `emit` as it goes, then `end` with what it
 * answers, or its failure thrown to the reader.
 */
export function turnStream<R>(
  run: (emit: (event: TurnProgress) => void) => Promise<R>,
): AsyncIterableIterator<TurnEvent<R>> {
  const events = new EventQueue<TurnEvent<R>>();
  let outcome: Promise<R>;
  try {
    outcome = run((event) => events.push(event));
  } catch (err) {
    outcome = Promise.reject(err as Error);
  }
  outcome.then(
    (turn) => {
      events.push({ type: 'end', turn });
      events.close();
    },
    (err: unknown) => events.fail(err),
  );
  return events;
}

/**
 * A turn's outcome: its events read to the end, each before the end handed to `emit` when given (a caller that
 * passes a turn's events on as its own).
 */
export async function outcomeOf<R>(
  events: AsyncIterable<TurnEvent<R>>,
  emit?: (event: TurnProgress) => void,
): Promise<R> {
  for await (const event of events) {
    if (event.type === 'end') return event.turn;
    emit?.(event);
  }
  throw new Error('The turn ended without its outcome');
}
