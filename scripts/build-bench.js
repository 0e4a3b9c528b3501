#!/usr/bin/env node
/*
 * Compiles the service and the benchmarks into .bench-build (tsconfig.bench.json), then copies the assets that
 * nest-cli.json names (the web call page's files), as `nest build` does for dist/.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.bench.json'], {
  cwd: root,
  stdio: 'inherit',
});
const nest = JSON.parse(fs.readFileSync(path.join(root, 'nest-cli.json'), 'utf8'));
for (const asset of nest.compilerOptions.assets ?? []) {
  const include = typeof asset === 'string' ? asset : asset.include;
  const dir = include.replace(/\/\*\*.*$/, '');
  fs.cpSync(path.join(root, 'src', dir), path.join(root, '.bench-build', 'src', dir), { recursive: true });
}
