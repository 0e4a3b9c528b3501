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

/** Rows as a Markdown table with aligned columns (the first row is the header), ready to paste into the docs. */
export function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => `| ${widths.map((w, c) => (r[c] ?? '').padEnd(w)).join(' | ')} |`;
  return [
    line(rows[0]),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
  ].join('\n');
}
