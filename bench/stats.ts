/** The p-th percentile (nearest rank) of an ascending list. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Runs a benchmark's main and exits: 0 when it finished, 1 with the stack when it failed. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: Error) => {
      process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
