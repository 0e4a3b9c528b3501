import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { migrate } from '../../src/database/data-source';

/**
 * One fresh database and one Redis key prefix per run, shared by every test file through the environment
 * (Jest starts its workers after this, so they inherit it).
 */
export default async function globalSetup(): Promise<void> {
  const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const base = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/cap_test_${run}`;
  process.env.DATABASE_URL = base.toString();
  process.env.REDIS_PREFIX = `cap-test-${run}`;
  process.env.STORAGE_DIR = path.join(os.tmpdir(), `cap-test-${run}`);
  process.env.CAP_TEST_RUN = run;
  await migrate(process.env.DATABASE_URL);
  process.env.CAP_TENANT_TABLES = await tenantTables(process.env.DATABASE_URL);
}

/** Tables with a workspace_id column, from the catalog: the ones the tenant-filter check watches. */
async function tenantTables(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT DISTINCT c.table_name AS name FROM information_schema.columns c
        JOIN information_schema.tables t USING (table_schema, table_name)
       WHERE c.table_schema = 'public' AND c.column_name = 'workspace_id' AND t.table_type = 'BASE TABLE'`,
    );
    return rows.map((r) => r.name.toLowerCase()).join(',');
  } finally {
    await client.end();
  }
}
