import { Client } from 'pg';
import { migrate } from '@/database/data-source';

/**
 * A database of its own for a suite whose background workers must not share the run's database (webhook
 * dispatchers claim every workspace's outbox events): created and migrated, its URL answered.
 */
export async function isolatedDatabase(tag: string): Promise<string> {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_${tag}`;
  await migrate(url.toString());
  return url.toString();
}

export async function dropDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  await client.end();
}
