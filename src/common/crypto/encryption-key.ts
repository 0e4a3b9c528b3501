import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AppConfig } from '@/config/app.config';

/**
 * ENCRYPTION_KEY, or in development a key generated once into STORAGE_DIR (production requires the variable,
 * which config validation enforces). Returns the config with the key filled in.
 */
export function resolveEncryptionKey(
  config: AppConfig,
  log: (line: string) => void = () => undefined,
): AppConfig {
  if (config.auth.encryptionKey) return config;
  const file = path.join(config.storageDir, 'encryption.key');
  let key: string;
  if (fs.existsSync(file)) {
    key = fs.readFileSync(file, 'utf8').trim();
  } else {
    key = randomBytes(32).toString('hex');
    fs.mkdirSync(config.storageDir, { recursive: true });
    try {
      fs.writeFileSync(file, key, { mode: 0o600, flag: 'wx' });
      log(`encryption key generated in ${file} (production sets ENCRYPTION_KEY)`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      key = fs.readFileSync(file, 'utf8').trim(); // another process wrote it first
    }
  }
  if (!/^[0-9a-f]{64}$/i.test(key)) throw new Error(`${file} does not hold a 64-character hexadecimal key`);
  return { ...config, auth: { ...config.auth, encryptionKey: key } };
}
