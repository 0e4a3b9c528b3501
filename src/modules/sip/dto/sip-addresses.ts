import { isIP } from 'node:net';
import { registerDecorator, ValidationOptions } from 'class-validator';

// The addresses trunks and PBX connectors take: host names, IP addresses or blocks, SIP user names.
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOSTNAME_RE = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`);

/** A host name or an IP address, nothing else: no scheme, user, port or path. */
export function isSipHost(value: unknown): boolean {
  return typeof value === 'string' && (HOSTNAME_RE.test(value) || isIP(value) !== 0);
}

/** An IP address or a CIDR block (`203.0.113.0/24`). */
export function isIpOrCidr(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const [ip, bits, extra] = value.split('/');
  if (extra !== undefined) return false;
  const family = isIP(ip);
  if (!family) return false;
  if (bits === undefined) return true;
  const n = Number(bits);
  return /^\d{1,3}$/.test(bits) && n <= (family === 4 ? 32 : 128);
}

const custom =
  (name: string, test: (v: unknown) => boolean, message: string) =>
  (options?: ValidationOptions): PropertyDecorator =>
  (object: object, propertyName: string | symbol): void =>
    registerDecorator({
      name,
      target: object.constructor,
      propertyName: propertyName as string,
      options: { message: `$property ${message}`, ...options },
      validator: { validate: (v: unknown) => test(v) },
    });

export const IsSipHost = custom(
  'isSipHost',
  isSipHost,
  'must be a host name or an IP address only (no scheme, port or path)',
);
export const IsIpOrCidr = custom('isIpOrCidr', isIpOrCidr, 'must be an IP address or a CIDR block');

const USER_RE = /^[A-Za-z0-9*#+._-]{1,64}$/;
export const IsSipUser = custom(
  'isSipUser',
  (v) => typeof v === 'string' && USER_RE.test(v),
  'must be 1 to 64 of A-Z a-z 0-9 * # + . _ -',
);
