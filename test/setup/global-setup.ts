import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
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
}
