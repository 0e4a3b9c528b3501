import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<readonly string[]>();

/**
 * The flow executions on whose behalf the running code acts, oldest first. Every outbox event written inside
 * `runInChain` carries it, so a flow triggered by that event knows how deep the chain already is.
 */
export function currentChain(): readonly string[] | undefined {
  return current.getStore();
}

export function runInChain<R>(chain: readonly string[], work: () => R): R {
  return current.run(chain, work);
}
