import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Client } from 'pg';
import { dropDatabase } from '../support/isolated-database';

/** The output and exit code of `npm run migration:run` on `url`. */
function migrator(url: string): Promise<{ code: number | null; out: string }> {
  const root = path.resolve(__dirname, '../..');
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', 'src/database/migrate.ts'],
      { cwd: root, env: { ...process.env, DATABASE_URL: url, TS_NODE_PROJECT: 'tsconfig.json' } },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('migrations: two processes starting at once on a database that does not exist yet', () => {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_race`;
  afterAll(() => dropDatabase(url.toString()));

  it('both succeed; one creates and migrates, the other finds it done', async () => {
    const [a, b] = await Promise.all([migrator(url.toString()), migrator(url.toString())]);
    expect([a, b]).toEqual([
      { code: 0, out: expect.any(String) },
      { code: 0, out: expect.any(String) },
    ]);
    const outs = [a.out, b.out].sort();
    expect(outs.filter((o) => /database \S+ created/.test(o))).toHaveLength(1);
    expect(outs.filter((o) => o.includes('Applied:'))).toHaveLength(1);
    expect(outs.filter((o) => o.includes('No pending migrations'))).toHaveLength(1);

    const db = new Client({ connectionString: url.toString() });
    await db.connect();
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM migrations');
    await db.end();
    expect(Number(rows[0].n)).toBeGreaterThan(5);
  }, 60_000);
});
