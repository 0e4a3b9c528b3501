import { ChildProcess, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..');

/**
 * An API replica (compiled by `tsc -p tsconfig.bench.json`, with its workers); answers its HTTPS address. With
 * `probe`, bench/probe.ts is preloaded (it counts when BENCH_PROBE_DIR is set); BENCH_CPU_PROF_DIR writes a CPU
 * profile of each replica there. BENCH_NODE_FLAGS adds Node/V8 flags (space-separated, e.g. `--trace-deopt`) and
 * BENCH_STDOUT_DIR keeps each replica's standard output there as `<pid>.out` (otherwise it is dropped).
 */
export function startServer(
  env: Record<string, string>,
  options: { probe?: boolean } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(path.join(root, '.bench-build', 'test', 'support', 'api-process.js'), [], {
    env: { ...env, TS_NODE_BASEURL: path.join(root, '.bench-build') },
    cwd: root,
    execArgv: [
      '-r',
      'tsconfig-paths/register',
      ...(options.probe ? ['-r', path.join(root, '.bench-build', 'bench', 'probe.js')] : []),
      ...(process.env.BENCH_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
        : []),
      ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    ],
    stdio: ['ignore', process.env.BENCH_STDOUT_DIR ? 'pipe' : 'ignore', 'inherit', 'ipc'],
  });
  const out = process.env.BENCH_STDOUT_DIR;
  if (out && child.stdout) {
    fs.mkdirSync(out, { recursive: true });
    child.stdout.pipe(fs.createWriteStream(path.join(out, `${child.pid}.out`)));
  }
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, url: `https://127.0.0.1:${m.port}` }));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** Stops a replica gracefully, killing it after 15 s. */
export function stopServer(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.send('stop');
    setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
  });
}
