import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as ts from 'typescript';
import { loadConfig } from '@/config/app.config';
import { resolveEncryptionKey } from './encryption-key';

const run = promisify(execFile);

describe('resolveEncryptionKey', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enc-key-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps ENCRYPTION_KEY when it is set and writes nothing', () => {
    const key = 'ab'.repeat(32);
    const config = resolveEncryptionKey(loadConfig({ STORAGE_DIR: dir, ENCRYPTION_KEY: key }));
    expect(config.auth.encryptionKey).toBe(key);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('generates a key once into the storage directory, readable only by its owner, and reads it back after', () => {
    const first = resolveEncryptionKey(loadConfig({ STORAGE_DIR: dir })).auth.encryptionKey;
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(fs.readdirSync(dir)).toEqual(['encryption.key']);
    expect(fs.statSync(path.join(dir, 'encryption.key')).mode & 0o777).toBe(0o600);
    expect(resolveEncryptionKey(loadConfig({ STORAGE_DIR: dir })).auth.encryptionKey).toBe(first);
  });

  it('refuses a key file that does not hold a key', () => {
    fs.writeFileSync(path.join(dir, 'encryption.key'), 'not a key');
    expect(() => resolveEncryptionKey(loadConfig({ STORAGE_DIR: dir }))).toThrow(
      /64-character hexadecimal key/,
    );
  });

  it('gives every one of several processes starting at the same instant the same key', async () => {
    const source = fs.readFileSync(path.join(__dirname, 'encryption-key.ts'), 'utf8');
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
    const modulePath = path.join(dir, 'encryption-key.js');
    fs.writeFileSync(modulePath, js);
    for (let round = 0; round < 4; round++) {
      const storage = path.join(dir, `round-${round}`);
      const startAt = Date.now() + 400;
      const script = `const m = require(${JSON.stringify(modulePath)});
        while (Date.now() < ${startAt});
        const c = m.resolveEncryptionKey({ storageDir: ${JSON.stringify(storage)}, auth: {} });
        process.stdout.write(c.auth.encryptionKey);`;
      const keys = await Promise.all(
        Array.from({ length: 6 }, () => run(process.execPath, ['-e', script]).then((r) => r.stdout)),
      );
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).toBe(fs.readFileSync(path.join(storage, 'encryption.key'), 'utf8'));
      expect(fs.readdirSync(storage)).toEqual(['encryption.key']);
    }
  });
});
