/**
 * File import benchmark: a generated 100 MB CSV (about 215,000 rows, 8 columns) uploaded through the real
 * endpoint and timed until the data source is ready (status 2), next to `psql \copy` of the same file into an
 * equivalent typed table, taking turns BENCH_RUNS times (default 3). Prints each run, the medians, their ratio
 * and the import's peak RSS.
 *
 * npm run bench:import   (builds dist first; BENCH_MB changes the size; needs PostgreSQL, Redis and psql)
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { runBench } from './stats';

const TARGET_BYTES = Number(process.env.BENCH_MB ?? 100) * 1024 * 1024;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
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

function request(
  url: string,
  options: { method?: string; host?: string; token?: string; body?: unknown } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = https.request(url, {
      method: options.method ?? 'GET',
      rejectUnauthorized: false,
      headers: {
        ...(options.host ? { host: options.host } : {}),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Peak and current resident set size of a process, in MB (Linux /proc). */
function rss(pid: number): { peak: number; now: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { peak: kb('VmHWM') / 1024, now: kb('VmRSS') / 1024 };
}

async function main(): Promise<void> {
  log(`generating ${Math.round(TARGET_BYTES / 1024 / 1024)} MB CSV in ${dir} ...`);
  const rows = await generate();
  const size = fs.statSync(csvFile).size;
  log(`  ${rows} rows, 8 columns, ${(size / 1024 / 1024).toFixed(1)} MB`);

  // The API as deployed (compiled, one process running the HTTP server and the workers), so its RSS is its own.
  const port = await freePort();
  const adminKey = `bench-admin-${run}-0123456789abcdef`;
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'main.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'error',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: `bench-${run}`,
      STORAGE_DIR: path.join(dir, 'storage'),
      ENCRYPTION_KEY: process.env.ENCRYPTION_KEY ?? 'a'.repeat(64),
      ADMIN_API_KEY: adminKey,
      RUN_WORKERS: 'true',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `https://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      const up = await request(`${url}/health`).catch(() => null);
      if (up?.status === 200) break;
      if (i > 600) throw new Error('the API did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const slug = `bench-${run}`;
    const admin = (path: string, body: unknown) =>
      request(`${url}/internal/v1/workspaces${path}`, {
        method: 'POST',
        token: adminKey,
        body,
        host: 'ops.bench',
      });
    await admin('', { slug, name: 'Bench' });
    const user = JSON.parse(
      (await admin(`/${slug}/users`, { email: `b@${slug}.test`, name: 'B', role: 'admin' })).body,
    ) as {
      data: { uuid: string };
    };
    const token = (
      JSON.parse((await admin(`/${slug}/tokens`, { name: 'bench', user_uuid: user.data.uuid })).body) as {
        data: { token: string };
      }
    ).data.token;
    const host = `${slug}.localhost`;

    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    const mb = size / 1024 / 1024;
    const before = rss(child.pid!);
    const results: { importSeconds: number; uploadSeconds: number; copySeconds: number }[] = [];
    // Import and \copy take turns, so that both meet the same conditions (WAL, checkpoints, other load).
    for (let i = 1; i <= RUNS; i++) {
      const started = process.hrtime.bigint();
      const answer = await uploadFile(url, host, token);
      if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${answer.body}`);
      const uploadSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const uuid = (JSON.parse(answer.body) as { data: { uuid: string } }).data.uuid;
      let status = 0;
      let error: string | null = null;
      let table: string | null = null;
      while (status < 2) {
        await new Promise((r) => setTimeout(r, 20));
        const res = await db.query<{ status: number; error: string | null; records_table: string | null }>(
          'SELECT status, error, records_table FROM data_sources WHERE id = $1',
          [uuid],
        );
        ({ status, error, records_table: table } = res.rows[0]);
      }
      const importSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (status !== 2) throw new Error(`import failed: ${error}`);
      const count = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM knowledge_data."${table}"`);
      if (count.rows[0].n !== rows) throw new Error(`imported ${count.rows[0].n} records of ${rows}`);

      await db.query(`DROP TABLE IF EXISTS bench_copy`);
      await db.query(`CREATE TABLE bench_copy (id bigint, name text, email text, price numeric, created date,
        active boolean, website text, description text)`);
      const copyStarted = process.hrtime.bigint();
      execFileSync('psql', [
        databaseUrl,
        '-q',
        '-c',
        `\\copy bench_copy FROM '${csvFile}' WITH (FORMAT csv, HEADER true)`,
      ]);
      const copySeconds = Number(process.hrtime.bigint() - copyStarted) / 1e9;
      results.push({ importSeconds, uploadSeconds, copySeconds });
      log(
        `run ${i}: import (upload to status 2) ${importSeconds.toFixed(2)} s (${(mb / importSeconds).toFixed(1)} MB/s, ` +
          `upload ${uploadSeconds.toFixed(2)} s), psql \\copy ${copySeconds.toFixed(2)} s ` +
          `(${(mb / copySeconds).toFixed(1)} MB/s), ratio ${((copySeconds / importSeconds) * 100).toFixed(0)}%`,
      );
      // The data source goes, and its records table with it, before the next run.
      await db.query('DELETE FROM data_sources WHERE id = $1', [uuid]);
    }
    await db.end();
    const after = rss(child.pid!);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const importMedian = median(results.map((r) => r.importSeconds));
    const copyMedian = median(results.map((r) => r.copySeconds));
    log('');
    log(
      `import (upload to status 2), median of ${RUNS}: ${importMedian.toFixed(2)} s, ${(mb / importMedian).toFixed(1)} MB/s`,
    );
    log(
      `  of which the upload (until the 201), median: ${median(results.map((r) => r.uploadSeconds)).toFixed(2)} s`,
    );
    log(
      `psql \\copy, median of ${RUNS}:                  ${copyMedian.toFixed(2)} s, ${(mb / copyMedian).toFixed(1)} MB/s`,
    );
    log(
      `ratio (import rate / \\copy rate): median of the runs ${(median(results.map((r) => r.copySeconds / r.importSeconds)) * 100).toFixed(0)}%`,
    );
    log(`API process RSS: ${before.now.toFixed(0)} MB before the uploads, peak ${after.peak.toFixed(0)} MB`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    if (!process.env.BENCH_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
