import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What running work carries down its asynchronous calls (the flow chain, the usage scope, the sweep marks, the
 * trace context), in one AsyncLocalStorage with a slot for each. On Node 20 every AsyncLocalStorage in use adds its
 * own step to each promise the process makes (a turn makes thousands): one shared store costs that step once.
 */
const storage = new AsyncLocalStorage<readonly unknown[]>();
let slots = 0;

/** One value carried down asynchronous calls (as an AsyncLocalStorage of its own would carry it). */
export interface AmbientSlot<T> {
  /** The value where the code runs, if any. */
  get(): T | undefined;
  /** Runs `work`, and everything it starts, with the value `value` (the other slots' values unchanged). */
  run<R>(value: T, work: () => R): R;
  /** Sets the value for the rest of the current synchronous run and what it starts (AsyncLocalStorage.enterWith). */
  enter(value: T | undefined): void;
}

/** A new slot of the shared store. */
export function ambientSlot<T>(): AmbientSlot<T> {
  const i = slots++;
  /** `frame` (the current one) with this slot's value set: a copy, as frames are shared by what they started. */
  const framed = (frame: readonly unknown[] | undefined, value: T | undefined): unknown[] => {
    const next = frame?.slice() ?? [];
    next[i] = value;
    return next;
  };
  return {
    get: () => storage.getStore()?.[i] as T | undefined,
    run: (value, work) => {
      const frame = storage.getStore();
      if (frame ? frame[i] === value : value === undefined) return work();
      return storage.run(framed(frame, value), work);
    },
    enter: (value) => storage.enterWith(framed(storage.getStore(), value)),
  };
}
