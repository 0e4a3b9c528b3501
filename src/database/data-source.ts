import { Client } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { SnakeNamingStrategy } from 'typeorm-naming-strategies';
import { MIGRATIONS } from './migrations';

/** Connections per process. */
export const POOL_MAX = 20;

/**
 * The one description of the database connection, shared by the app, the CLI and the tests: a pool of 20 per
 * process; `applicationName` names the process's sessions (see session-name.ts), `poolMin` connections stay open
 * once opened (DatabasePoolWarmup opens them at start).
 */
export function dataSourceOptions(
  url: string,
  session: { applicationName?: string; poolMin?: number } = {},
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    ...(session.applicationName ? { applicationName: session.applicationName } : {}),
    namingStrategy: new SnakeNamingStrategy(),
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: {
      max: POOL_MAX,
      min: Math.min(session.poolMin ?? 0, POOL_MAX),
      // Named statements (statement-names.ts) are parsed once per connection but planned with each run's values:
      // a generic plan, chosen on estimates, made the outbound picks several times slower on freshly filled tables.
      options: '-c plan_cache_mode=force_custom_plan',
    },
  };
}

/** Advisory lock names: one on the server's `postgres` database for creating, one in the target for migrating. */
const CREATE_LOCK = 'agent-platform:create-database';
const MIGRATE_LOCK = 'agent-platform:migrations';

/** What a start did to the database, one line a step, for the start-up log. */
export type MigrationLog = (line: string) => void;

/** `host:port/name` of a database URL, without credentials, for messages. */
export function describeDatabase(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 5432}${u.pathname}`;
}

/** A connection refused or timed out says so in one line naming the server, not a driver stack. */
async function connect(client: Client, url: string): Promise<void> {
  try {
    await client.connect();
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[] };
    const code = e.code ?? e.errors?.[0]?.code;
    const why = e.message || code || 'connection failed';
    throw new Error(`PostgreSQL at ${describeDatabase(url)} is unreachable: ${why}`, { cause: err });
  }
}

/**
 * Creates the database named in the URL when it does not exist yet; answers whether it did. Processes starting
 * at once on a fresh server take turns under an advisory lock (the lock ends with the session).
 */
export async function ensureDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await connect(client, url);
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [CREATE_LOCK]);
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      return true;
    } catch (err) {
      // Created meanwhile by a process that does not take the lock (an older release, an operator).
      if (['42P04', '23505'].includes((err as { code?: string }).code ?? '')) return false;
      throw err;
    }
  } finally {
    await client.end();
  }
}

/**
 * Creates the database if needed and applies every pending migration, holding an advisory lock in the database so
 * that processes starting together (API and worker) migrate one after the other; answers the applied names.
 */
export async function migrate(
  url: string,
  entities: DataSourceOptions['entities'] = [],
  log: MigrationLog = () => undefined,
): Promise<string[]> {
  if (await ensureDatabase(url)) log(`database ${describeDatabase(url)} created`);
  const lock = new Client({ connectionString: url });
  await connect(lock, url);
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [MIGRATE_LOCK]);
    const ds = new DataSource({ ...dataSourceOptions(url), entities });
    await ds.initialize();
    try {
      const applied = (await ds.runMigrations({ transaction: 'each' })).map((m) => m.name);
      log(
        applied.length
          ? `migrations applied: ${applied.join(', ')}`
          : `database schema up to date (${MIGRATIONS.length} migrations)`,
      );
      return applied;
    } finally {
      await ds.destroy();
    }
  } finally {
    await lock.end(); // ends the session, and with it the lock
  }
}
