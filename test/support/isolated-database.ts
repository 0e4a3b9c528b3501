import { Client } from 'pg';

/**
 * A database of its own for a suite whose background workers must not share the run's database (webhook
 * dispatchers claim every workspace's outbox events). The app creates and migrates it on start.
 */
export function isolatedDatabaseUrl(tag: string): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_${tag}`;
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
