#!/usr/bin/env node
'use strict';
/*
 * `npm run admin -- <command>`: runs the compiled admin CLI (dist/cli/admin.js, written by `npm run build` and
 * `npm start`) when it is newer than every file under src/, in about a second; otherwise (no build yet, or sources
 * changed since) the sources through ts-node, which compiles them first (about 20 s). Either runs in this process,
 * once: its exit code is the command's.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const compiled = path.join(root, 'dist', 'cli', 'admin.js');

/** The latest modification time of any file under `dir`. */
function newestUnder(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    const time = entry.isDirectory() ? newestUnder(at) : fs.statSync(at).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

function compiledIsCurrent() {
  try {
    return fs.statSync(compiled).mtimeMs >= newestUnder(path.join(root, 'src'));
  } catch {
    return false;
  }
}

if (compiledIsCurrent()) {
  require(compiled);
} else {
  process.stderr.write(
    'admin: dist/ is missing or older than src/, so the sources run through ts-node (slow); ' +
      '`npm run build` makes the next commands fast\n',
  );
  process.env.TS_NODE_PROJECT = path.join(root, 'tsconfig.json');
  require('ts-node').register({ transpileOnly: true, project: process.env.TS_NODE_PROJECT });
  require('tsconfig-paths/register');
  require(path.join(root, 'src', 'cli', 'admin.ts'));
}
