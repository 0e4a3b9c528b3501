import type { AppConfig } from '@/config/app.config';
import { SecretBox } from './secret-box';

const config = (key: string) => ({ auth: { encryptionKey: key } }) as AppConfig;
const KEY = 'a'.repeat(64);

describe('SecretBox', () => {
  it('round-trips a secret and never stores it in clear', () => {
    const box = new SecretBox(config(KEY));
    const sealed = box.encrypt('whsec_top-secret');
    expect(sealed.startsWith('v1:')).toBe(true);
    expect(sealed).not.toContain('top-secret');
    expect(box.decrypt(sealed)).toBe('whsec_top-secret');
  });

  it('uses a fresh IV so equal secrets differ', () => {
    const box = new SecretBox(config(KEY));
    expect(box.encrypt('same')).not.toBe(box.encrypt('same'));
  });

  it('rejects a value sealed with another key or tampered with', () => {
    const sealed = new SecretBox(config(KEY)).encrypt('secret');
    expect(() => new SecretBox(config('b'.repeat(64))).decrypt(sealed)).toThrow();
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => new SecretBox(config(KEY)).decrypt(`v1:${raw.toString('base64')}`)).toThrow();
  });

  it('refuses a key that is not 32 bytes of hex', () => {
    expect(() => new SecretBox(config('abc'))).toThrow(/ENCRYPTION_KEY/);
  });
});
