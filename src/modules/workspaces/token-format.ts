import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const TOKEN_PREFIX = 'cap_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;

function toBase62(n: number, width: number): string {
  let out = '';
  let v = n;
  while (v > 0) {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out.padStart(width, '0');
}

export function checksum(random: string): string {
  return toBase62(crc32(random), CHECKSUM_LENGTH);
}

/** `cap_` + 32 random base62 characters + a 6-character base62 CRC32 of them, so scanners can recognise leaks. */
export function generateTokenValue(): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return `${TOKEN_PREFIX}${random}${checksum(random)}`;
}

/** True when the value has the token shape and its checksum matches (no database needed). */
export function isWellFormedToken(value: string): boolean {
  if (!value.startsWith(TOKEN_PREFIX)) return false;
  const body = value.slice(TOKEN_PREFIX.length);
  if (body.length < RANDOM_LENGTH + CHECKSUM_LENGTH || !/^[0-9A-Za-z]+$/.test(body)) return false;
  const random = body.slice(0, -CHECKSUM_LENGTH);
  return checksum(random) === body.slice(-CHECKSUM_LENGTH);
}

export function hashToken(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
