import * as fs from 'node:fs';
import * as path from 'node:path';

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
}

/**
 * The lock file lists every optional dependency of every package, for every platform: npm 11 refuses `npm ci` when
 * one is missing, and `npm install` would add it. The whole install is checked by `npm run check:install`.
 */
describe('package-lock.json', () => {
  const root = path.resolve(__dirname, '../..');
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    lockfileVersion: number;
    packages: Record<string, LockEntry>;
  };

  /** Node's lookup: the package's own node_modules, then each folder above it. */
  function resolves(from: string, name: string): boolean {
    let dir = from;
    for (;;) {
      if (lock.packages[`${dir ? `${dir}/` : ''}node_modules/${name}`]) return true;
      if (!dir) return false;
      const at = dir.lastIndexOf('/node_modules/');
      dir = at < 0 ? '' : dir.slice(0, at);
    }
  }

  it('is version 3 and names the optional dependencies of every platform', () => {
    expect(lock.lockfileVersion).toBe(3);
    const missing: string[] = [];
    for (const [where, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {}))
        if (!resolves(where, name)) missing.push(`${where || '(root)'} -> ${name}`);
    }
    expect(missing).toEqual([]);
    expect(lock.packages['node_modules/@msgpackr-extract/msgpackr-extract-win32-x64']).toBeDefined();
  });

  it('matches package.json', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as LockEntry & {
      devDependencies: Record<string, string>;
    };
    expect(lock.packages[''].dependencies).toEqual(pkg.dependencies);
    expect((lock.packages[''] as typeof pkg).devDependencies).toEqual(pkg.devDependencies);
  });
});
