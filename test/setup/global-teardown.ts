import * as fs from 'node:fs';
import Redis from 'ioredis';
import { Client } from 'pg';
import { describeViolations, readViolations, tenantCheckDir } from './tenant-filter-report';

/** Drops the run's database, its Redis keys and its storage folder. */
export default async function globalTeardown(): Promise<void> {
  const unscoped = readViolations().filter((v) => !v.fromTest);
  fs.rmSync(tenantCheckDir(), { recursive: true, force: true });
  await dropRun();
  // Thrown from the global teardown, the error fails the run with the list.
  if (unscoped.length) throw new Error(describeViolations(unscoped));
}

async function dropRun(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (url && /\/cap_test_[a-z0-9]+$/.test(url)) {
    const admin = new URL(url);
    const name = admin.pathname.slice(1);
    admin.pathname = '/postgres';
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.end();
  }
  const prefix = process.env.REDIS_PREFIX;
  if (prefix?.startsWith('cap-test-')) {
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await redis.quit();
  }
  if (process.env.STORAGE_DIR?.includes('cap-test-'))
    fs.rmSync(process.env.STORAGE_DIR, { recursive: true, force: true });
}
