import { Client } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Runs `work` while a session of its own holds `LOCK TABLE <table> IN <mode> MODE` on the database, and rolls that
 * lock back afterwards, whatever happens: a deterministic way to hold the app's statements on that table.
 */
export async function withTableLocked<T>(
  databaseUrl: string,
  lock: `${string} IN ${string} MODE`,
  work: () => Promise<T>,
): Promise<T> {
  const locker = new Client({ connectionString: databaseUrl });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${lock}`);
    return await work();
  } finally {
    await locker.query('ROLLBACK');
    await locker.end();
  }
}

/**
 * Whether a session of this database waits for a lock while running a statement like `pattern` (ILIKE; only the
 * statement's first kilobyte is kept): true, else undefined, for `waitFor`.
 */
export async function waitingForLock(db: DataSource, pattern: string): Promise<true | undefined> {
  const [row] = (await db.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE $1`,
    [pattern],
  )) as { n: number }[];
  return row.n > 0 ? true : undefined;
}
