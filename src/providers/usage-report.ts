import { ambientSlot } from '@/common/context/ambient';

/** What an outside service was asked for or answered, as its adapter reports it. Every figure is a delta. */
export interface UsageReport {
  /** A model's `usage.prompt_tokens`. */
  promptTokens?: number;
  /** A model's `usage.completion_tokens`. */
  completionTokens?: number;
  /** Milliseconds of audio sent to speech to text. */
  sttMs?: number;
  /** Characters sent to text to speech. */
  ttsCharacters?: number;
  /** Tool (intent) calls made. */
  toolCalls?: number;
  /** Seconds of a forwarded call leg. */
  forwardedSeconds?: number;
}

/** Where the reports of the running work go: the conversation it belongs to (the usage module makes one). */
export interface UsageScope {
  report(usage: UsageReport): void;
}

const current = ambientSlot<UsageScope>();

/**
 * Adds to the usage of the conversation the running work belongs to; outside any scope (a job that serves no
 * conversation) the report is dropped. Never throws, never waits.
 */
export function reportUsage(usage: UsageReport): void {
  current.get()?.report(usage);
}

/** Runs `work`, and everything it starts, with its usage reported to `scope`. */
export function runInUsageScope<R>(scope: UsageScope, work: () => R): R {
  return current.run(scope, work);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return !!value && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

/** An async iterable whose every step runs in `scope` (a generator's body resumes in its caller's context). */
function iterableWithin<T>(source: AsyncIterable<T>, scope: UsageScope): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const inner = runInUsageScope(scope, () => source[Symbol.asyncIterator]());
      return {
        next: (...args) => runInUsageScope(scope, () => inner.next(...args)),
        return: (value?: unknown) =>
          runInUsageScope(scope, () =>
            inner.return ? inner.return(value) : Promise.resolve({ done: true, value: undefined as T }),
          ),
        throw: (err?: unknown) =>
          runInUsageScope(scope, () => (inner.throw ? inner.throw(err) : Promise.reject(err as Error))),
      };
    },
  };
}

/**
 * `target` (a port's adapter) with every method run in `scope`, and the async iterables they answer stepped in it,
 * so an object used far from where the conversation is known (a call's media session) still reports to it.
 */
export function withinUsageScope<T extends object>(target: T, scope: UsageScope): T {
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const out: unknown = runInUsageScope(scope, () =>
          (value as (...a: unknown[]) => unknown).apply(object, args),
        );
        return isAsyncIterable(out) && !(out instanceof Promise) ? iterableWithin(out, scope) : out;
      };
    },
  });
}
