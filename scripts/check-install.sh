#!/usr/bin/env bash
# `npm run check:install`: the lock file installs with `npm ci` under npm 10 (shipped with Node 20, used by the
# Docker image) and under the npm on PATH, and `npm install` leaves it byte for byte as it is. Runs in a copy.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$root/package.json" "$root/package-lock.json" "$work/"
cd "$work"
flags=(--ignore-scripts --no-audit --no-fund --loglevel=error)

echo "npm 10: npm ci"
npx -y npm@10 ci "${flags[@]}"
rm -rf node_modules
echo "npm $(npm -v): npm ci"
npm ci "${flags[@]}"
echo "npm $(npm -v): npm install leaves package-lock.json unchanged"
npm install "${flags[@]}"
if ! cmp -s package-lock.json "$root/package-lock.json"; then
  diff -u "$root/package-lock.json" package-lock.json | head -40
  echo "FAIL: npm install changed package-lock.json" >&2
  exit 1
fi
echo "install checks passed"
