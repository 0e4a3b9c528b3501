import { ambientSlot } from '@/common/context/ambient';

const current = ambientSlot<readonly string[]>();

/**
 * The flow executions on whose behalf the running code acts, oldest first. Every outbox event written inside
 * `runInChain` carries it, so a flow triggered by that event knows how deep the chain already is.
 */
export function currentChain(): readonly string[] | undefined {
  return current.get();
}

export function runInChain<R>(chain: readonly string[], work: () => R): R {
  return current.run(chain, work);
}
