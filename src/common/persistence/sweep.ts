import { ambientSlot } from '@/common/context/ambient';

/** The cross-tenant jobs allowed to read or write every workspace's rows in one statement. */
export type SweepKind = 'delivery' | 'dispatch' | 'retention' | 'reconciliation' | 'inventory';

export const SWEEP_KINDS: readonly SweepKind[] = [
  'delivery',
  'dispatch',
  'retention',
  'reconciliation',
  'inventory',
];

const current = ambientSlot<SweepKind>();

/** The sweep the running code belongs to, if any (read by the statement check of the test suite). */
export function currentSweep(): SweepKind | undefined {
  return current.get();
}

/** Runs `work` as the named sweep: its statements may span workspaces. */
export function runAsSweep<R>(kind: SweepKind, work: () => R): R {
  return current.run(kind, work);
}

/**
 * Marks a repository method as a named cross-tenant sweep. Any other statement on a tenant table must filter on
 * `workspace_id`; the test suite fails on one that does not (see tenant-statement-check.ts).
 */
export function Sweep(kind: SweepKind) {
  return function mark<A extends unknown[], R>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<(...args: A) => R>,
  ): void {
    const method = descriptor.value!;
    descriptor.value = function (this: unknown, ...args: A): R {
      return current.run(kind, () => method.apply(this, args));
    };
  };
}

const ownedSave = ambientSlot<true>();

/**
 * Runs a TypeORM save of entities whose workspace the repository has checked: TypeORM reads and updates them by
 * primary key alone, so the statement check accepts those statements in here.
 */
export function runAsOwnedSave<R>(work: () => R): R {
  return ownedSave.run(true, work);
}

export function inOwnedSave(): boolean {
  return ownedSave.get() === true;
}
