/**
 * Imported before `./probe` by a benchmark that runs the server in its own process: points the probe at a fresh
 * directory (unless BENCH_PROBE_DIR is already set), so the benchmark can count its own statements and CPU time.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

process.env.BENCH_PROBE_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), 'cap-bench-probe-'));

/** A snapshot of this process's probe (bench/probe.ts), taken with SIGUSR2. */
export async function snapshotSelf<T>(): Promise<T> {
  const dir = process.env.BENCH_PROBE_DIR!;
  const before = new Set(fs.readdirSync(dir));
  process.kill(process.pid, 'SIGUSR2');
  for (let i = 0; i < 100; i++) {
    const fresh = fs.readdirSync(dir).filter((f) => !before.has(f) && f.startsWith(`${process.pid}-`));
    if (fresh.length) return JSON.parse(fs.readFileSync(path.join(dir, fresh[0]), 'utf8')) as T;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the probe wrote no snapshot');
}
