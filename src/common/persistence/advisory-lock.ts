/** Anything that runs a statement in the caller's transaction: an EntityManager or a QueryRunner. */
interface InTransaction {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * Serialises work on one key, in every process, until the caller's transaction ends: a transaction-scoped advisory
 * lock on `<namespace>:<key>` (so checking and then writing cannot interleave with another claim of the same key).
 */
export async function lockUntilCommit(tx: InTransaction, namespace: string, key: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`${namespace}:${key}`]);
}
