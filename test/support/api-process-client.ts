import { ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import { client, TenantClient } from '../setup/test-app';

export interface ApiProcess {
  child: ChildProcess;
  url: string;
  /** Whether the process loaded the tracing SDK. */
  tracing: boolean;
  /** What it wrote to standard output so far (with `output: true`; its log lines). */
  output(): string;
  http(host: string, token?: string): TenantClient;
  /** SIGKILL: the replica dies without any cleanup, as a crashed one does. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * How long a forked replica may take to listen (ts-node compiles the app first; slow on a loaded machine). Hooks that
 * fork one allow more (180 s), so the start's own error, not the hook's timeout, says what went wrong.
 */
const REPLICA_START_MS = 120_000;

/**
 * Every replica this test file forked that has not exited. After the file's last test they are killed, so a
 * replica whose hook timed out (never assigned, so never stopped) does not run on beside later files. (A replica
 * also exits by itself when the process that forked it is gone: see `api-process.ts`.)
 */
const live = new Set<ChildProcess>();
if (typeof afterAll === 'function')
  afterAll(() => {
    for (const child of live) if (child.exitCode === null) child.kill('SIGKILL');
  });

/**
 * Forks `api-process.ts` (ts-node) with the given environment and waits for it to listen; with `output`, what it
 * writes to standard output is kept (else dropped). A replica not listening within `REPLICA_START_MS` is killed.
 */
export async function startApiProcess(
  env: Record<string, string>,
  options: { output?: boolean } = {},
): Promise<ApiProcess> {
  const root = path.resolve(__dirname, '../..');
  const child = fork(path.join(__dirname, 'api-process.ts'), [], {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      TS_NODE_TRANSPILE_ONLY: 'true',
      TS_NODE_PROJECT: path.join(root, 'tsconfig.json'),
    },
    execArgv: ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register'],
    stdio: ['ignore', options.output ? 'pipe' : 'ignore', 'inherit', 'ipc'],
  });
  live.add(child);
  const written: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => written.push(chunk));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      live.delete(child);
      resolve();
    }),
  );
  let timer: NodeJS.Timeout | undefined;
  const { port, tracing } = await new Promise<{ port: number; tracing: boolean }>((resolve, reject) => {
    child.once('message', (m: { port: number; tracing: boolean }) => resolve(m));
    child.once('exit', (code) => reject(new Error(`api process exited with ${code}`)));
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`api process did not listen within ${REPLICA_START_MS} ms`));
    }, REPLICA_START_MS);
  }).finally(() => clearTimeout(timer));
  const url = `https://127.0.0.1:${port}`;
  return {
    child,
    url,
    tracing,
    output: () => Buffer.concat(written).toString('utf8'),
    http: (host, token) => client(url, host, token),
    kill: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null) child.send('stop');
      await exited;
    },
  };
}
