import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { uniqueSlug } from '../factories/workspace.factory';
import { ADMIN_KEY } from '../setup/test-app';
import { dropDatabase } from '../support/isolated-database';
import { waitFor } from '../support/wait';

const root = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** A compiled process of the service, its output lines kept as they come. */
class Proc {
  readonly out: string[] = [];
  readonly err: string[] = [];
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(script: string, env: Record<string, string>) {
    this.child = spawn(process.execPath, [script], { env, cwd: root });
    const split = (into: string[]) => (c: Buffer) => into.push(...c.toString().split('\n').filter(Boolean));
    this.child.stdout!.on('data', split(this.out));
    this.child.stderr!.on('data', split(this.err));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  /** Parsed JSON log lines. */
  get lines(): Array<Record<string, unknown> & { msg: string }> {
    return this.out.flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
  }

  line(pattern: RegExp): Promise<string> {
    return waitFor(async () => this.lines.find((l) => pattern.test(l.msg))?.msg, 60_000, String(pattern));
  }

  stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }
}

function get(port: number, urlPath: string, auth?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = auth ? { authorization: `Bearer ${auth}` } : undefined;
    http
      .get({ host: '127.0.0.1', port, path: urlPath, headers, agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

/**
 * The compiled service as the Docker image runs it (`node dist/...`): built once into a folder of its own with the
 * same `nest build` (its modules found through NODE_PATH, as the image finds them beside dist/).
 */
describe('compiled processes: admin CLI, start-up, worker health, stop', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cap-build-'));
  const dist = path.join(work, 'dist');
  const bootDb = new URL(process.env.DATABASE_URL!);
  bootDb.pathname = `${bootDb.pathname}_boot`;
  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    NODE_PATH: path.join(root, 'node_modules'),
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    DATABASE_URL: process.env.DATABASE_URL!,
    REDIS_PREFIX: `${process.env.REDIS_PREFIX}-proc`,
    STORAGE_DIR: path.join(work, 'storage'),
    ADMIN_API_KEY: ADMIN_KEY,
    SHUTDOWN_TIMEOUT_MS: '3000',
    ...extra,
  });

  beforeAll(async () => {
    fs.writeFileSync(
      path.join(work, 'tsconfig.json'),
      JSON.stringify({
        extends: path.join(root, 'tsconfig.build.json'),
        compilerOptions: { outDir: dist, incremental: false, sourceMap: false },
      }),
    );
    const nest = path.join(root, 'node_modules/@nestjs/cli/bin/nest.js');
    await run(
      process.execPath,
      [nest, 'build', '--path', path.relative(root, path.join(work, 'tsconfig.json'))],
      {
        cwd: root,
        timeout: 240_000,
      },
    );
  }, 250_000);
  afterAll(async () => {
    await dropDatabase(bootDb.toString());
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('creates the first workspace, user and token with the compiled admin CLI', async () => {
    const slug = uniqueSlug('boot');
    const admin = (...args: string[]) =>
      run(process.execPath, [path.join(dist, 'cli/admin.js'), ...args], {
        cwd: root,
        env: env(),
        timeout: 60_000,
      });
    expect((await admin('workspace:create', slug)).stdout).toContain(`workspace ${slug} created`);
    expect((await admin('user:create', slug, 'admin@boot.test', '--role', 'admin')).stdout).toContain(
      'user admin@boot.test (admin) created',
    );
    const token = (await admin('token:create', slug, '--user', 'admin@boot.test')).stdout
      .trim()
      .split('\n')[1];
    expect(token).toMatch(/^cap_[0-9A-Za-z]{38}$/);
  }, 60_000);

  it('says what its start did (database, migrations, key, certificate, address) and, last, that it stopped', async () => {
    const api = new Proc(
      path.join(dist, 'main.js'),
      env({
        DATABASE_URL: bootDb.toString(),
        PORT: '0',
        RUN_WORKERS: 'false',
        STORAGE_DIR: path.join(work, 'fresh'),
      }),
    );
    const listening = await api.line(/^API listening on https port \d+/);
    const messages = api.lines.map((l) => l.msg);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^encryption key generated in .*encryption\.key/),
        expect.stringMatching(/^database 127\.0\.0\.1:5432\/cap_test_\w+_boot created$/),
        expect.stringMatching(/^migrations applied: Foundation\d+, /),
        expect.stringMatching(/^self-signed certificate for localhost, \*\.localhost.* generated in /),
      ]),
    );
    expect(messages.indexOf(listening)).toBe(messages.length - 1);
    expect(await api.stop()).toBe(0);
    expect(api.lines.at(-1)).toMatchObject({
      level: 30,
      msg: expect.stringMatching(/^stopped after \d+ ms$/),
    });
    expect(api.err).toEqual([]);
  }, 90_000);

  it('runs the worker with its own health listener and metrics, and stops cleanly', async () => {
    const worker = new Proc(path.join(dist, 'worker.js'), env({ WORKER_HEALTH_PORT: '0' }));
    const started = await worker.line(/^Workers started/);
    const port = Number(/health on http port (\d+)/.exec(started)![1]);
    expect(await get(port, '/health')).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect(JSON.parse((await get(port, '/health/ready')).body)).toEqual({
      status: 'ok',
      checks: { postgres: 'ok', redis: 'ok' },
    });
    expect((await get(port, '/metrics')).status).toBe(401);
    const metrics = await get(port, '/metrics', ADMIN_KEY);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('cap_queue_jobs{queue="webhooks",state="waiting"}');
    expect(await worker.stop()).toBe(0);
    expect(worker.lines.at(-1)?.msg).toMatch(/^stopped after \d+ ms$/);
  }, 90_000);

  it('stops with one line when PostgreSQL or Redis cannot be reached', async () => {
    const noDb = new Proc(
      path.join(dist, 'main.js'),
      env({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' }),
    );
    const noRedis = new Proc(path.join(dist, 'main.js'), env({ REDIS_URL: 'redis://127.0.0.1:1' }));
    expect(await noDb.exited).toBe(1);
    expect(await noRedis.exited).toBe(1);
    expect(noDb.err).toEqual([
      expect.stringMatching(
        /^Startup failed: PostgreSQL at 127\.0\.0\.1:1\/nowhere is unreachable: .*ECONNREFUSED/,
      ),
    ]);
    expect(noRedis.err).toEqual([
      expect.stringMatching(/^Startup failed: Redis at 127\.0\.0\.1:1 is unreachable: .*ECONNREFUSED/),
    ]);
    expect([...noDb.out, ...noRedis.out].join('\n')).not.toMatch(/\n\s+at /);
  }, 60_000);
});
