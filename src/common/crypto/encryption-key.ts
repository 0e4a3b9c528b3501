import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AppConfig } from '@/config/app.config';

/**
 * ENCRYPTION_KEY, or in development a key generated once into STORAGE_DIR (production requires the variable,
 * which config validation enforces). Returns the config with the key filled in.
 *
 * Several processes may start at once on the same directory: the key is written whole to a file of this process's
 * own and published with `link`, which fails if the key file already exists, so the key file is never seen empty or
 * half written and every process ends with the same key.
 */
export function resolveEncryptionKey(
  config: AppConfig,
  log: (line: string) => void = () => undefined,
): AppConfig {
  if (config.auth.encryptionKey) return config;
  const file = path.join(config.storageDir, 'encryption.key');
  const key = fs.existsSync(file) ? readKey(file) : createKey(config.storageDir, file, log);
  return { ...config, auth: { ...config.auth, encryptionKey: key } };
}

function readKey(file: string): string {
  const key = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(key)) throw new Error(`${file} does not hold a 64-character hexadecimal key`);
  return key;
}

function createKey(dir: string, file: string, log: (line: string) => void): string {
  const key = randomBytes(32).toString('hex');
  fs.mkdirSync(dir, { recursive: true });
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(draft, key, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(draft, file);
    log(`encryption key generated in ${file} (production sets ENCRYPTION_KEY)`);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readKey(file); // another process published its key first
  } finally {
    fs.rmSync(draft, { force: true });
  }
}
