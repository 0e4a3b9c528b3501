/**
 * File import benchmark: a generated 100 MB CSV (about 215,000 rows, 8 columns) uploaded through the real
 * endpoint and timed until the data source is ready (status 2), next to `psql \copy` of the same file into an
 * equivalent typed table. Prints both rates, their ratio and the import's peak RSS.
 *
 * npm run bench:import   (BENCH_MB to change the size; needs PostgreSQL, Redis and psql)
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { prepareRuntime, startApi } from '@/bootstrap';
import { loadConfig } from '@/config/app.config';
import { TokensService } from '@/modules/workspaces/tokens.service';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';

const TARGET_BYTES = Number(process.env.BENCH_MB ?? 100) * 1024 * 1024;
const run = Date.now().toString(36);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-import-'));
const csvFile = path.join(dir, 'data.csv');
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/cap_bench_import';

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Writes the CSV with backpressure; returns the row count. */
async function generate(): Promise<number> {
  const out = fs.createWriteStream(csvFile);
  out.write('id,name,email,price,created,active,website,description\n');
  const words = 'lamp desk chair sofa table shelf mirror rug curtain pillow blanket vase clock frame'.split(
    ' ',
  );
  let bytes = 0;
  let rows = 0;
  while (bytes < TARGET_BYTES) {
    rows++;
    const w = words[rows % words.length];
    const description = `The ${w} number ${rows} is ${'a well made and durable piece of furniture, '.repeat(8)}built to last.`;
    const line =
      `${rows},${w} ${rows},${w}${rows}@example.com,${(rows % 1000) + 0.99},2026-0${(rows % 9) + 1}-1${rows % 10},` +
      `${rows % 2 === 0},https://shop.example.com/${w}/${rows},"${description}"\n`;
    bytes += line.length;
    if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
  return rows;
}

function uploadFile(url: string, host: string, token: string): Promise<{ status: number; body: string }> {
  const boundary = `----bench${run}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nBench\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="data.csv"\r\n` +
      `Content-Type: text/csv\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + fs.statSync(csvFile).size + tail.length;
  return new Promise((resolve, reject) => {
    const req = https.request(`${url}/api/v1/data/import/file`, {
      method: 'POST',
      rejectUnauthorized: false,
      headers: {
        host,
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': length,
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.write(head);
    const file = fs.createReadStream(csvFile);
    file.on('end', () => req.end(tail));
    file.pipe(req, { end: false });
  });
}

async function main(): Promise<void> {
  log(`generating ${Math.round(TARGET_BYTES / 1024 / 1024)} MB CSV in ${dir} ...`);
  const rows = await generate();
  const size = fs.statSync(csvFile).size;
  log(`  ${rows} rows, 8 columns, ${(size / 1024 / 1024).toFixed(1)} MB`);

  const config = await prepareRuntime(
    loadConfig({
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      PORT: '0',
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: `bench-${run}`,
      STORAGE_DIR: path.join(dir, 'storage'),
      RUN_WORKERS: 'true',
    }),
  );
  const api = await startApi(config, { host: '127.0.0.1' });
  const url = `https://127.0.0.1:${api.server.port}`;
  try {
    const slug = `bench-${run}`;
    await api.app.get(WorkspacesService).createWorkspace(slug, 'Bench');
    const user = await api.app
      .get(WorkspacesService)
      .createUser(slug, { email: `b@${slug}.test`, role: 'admin' });
    const { token } = await api.app.get(TokensService).create(slug, { name: 'bench', user: user.id });
    const host = `${slug}.localhost`;

    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = process.hrtime.bigint();
    const answer = await uploadFile(url, host, token);
    if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${answer.body}`);
    const uploadSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const uuid = (JSON.parse(answer.body) as { data: { uuid: string } }).data.uuid;
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    let status = 0;
    let error: string | null = null;
    while (status < 2) {
      await new Promise((r) => setTimeout(r, 50));
      const res = await db.query<{ status: number; error: string | null }>(
        'SELECT status, error FROM data_sources WHERE id = $1',
        [uuid],
      );
      ({ status, error } = res.rows[0]);
    }
    const importSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(sampler);
    if (status !== 2) throw new Error(`import failed: ${error}`);
    const count = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM knowledge_records WHERE data_source_id = $1',
      [uuid],
    );

    await db.query(`DROP TABLE IF EXISTS bench_copy`);
    await db.query(`CREATE TABLE bench_copy (id bigint, name text, email text, price numeric, created date,
      active boolean, website text, description text)`);
    await db.end();
    const copyStarted = process.hrtime.bigint();
    execFileSync('psql', [
      databaseUrl,
      '-q',
      '-c',
      `\\copy bench_copy FROM '${csvFile}' WITH (FORMAT csv, HEADER true)`,
    ]);
    const copySeconds = Number(process.hrtime.bigint() - copyStarted) / 1e9;

    const mb = size / 1024 / 1024;
    log('');
    log(
      `import (upload to status 2): ${importSeconds.toFixed(2)} s, ${(mb / importSeconds).toFixed(1)} MB/s, ${count.rows[0].n} records`,
    );
    log(`  of which the upload (until the 201): ${uploadSeconds.toFixed(2)} s`);
    log(`psql \\copy:                  ${copySeconds.toFixed(2)} s, ${(mb / copySeconds).toFixed(1)} MB/s`);
    log(`ratio (import rate / \\copy rate): ${((copySeconds / importSeconds) * 100).toFixed(0)}%`);
    log(
      `peak RSS during import: ${(peak / 1024 / 1024).toFixed(0)} MB (before: ${(baseline / 1024 / 1024).toFixed(0)} MB)`,
    );
  } finally {
    await api.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
