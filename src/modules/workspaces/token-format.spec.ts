import { checksum, generateTokenValue, hashToken, isWellFormedToken, TOKEN_PREFIX } from './token-format';

describe('token format', () => {
  it('is cap_ + 32 base62 characters + a 6-character base62 checksum', () => {
    const value = generateTokenValue();
    expect(value).toMatch(/^cap_[0-9A-Za-z]{38}$/);
    const random = value.slice(TOKEN_PREFIX.length, -6);
    expect(random).toHaveLength(32);
    expect(value.slice(-6)).toBe(checksum(random));
  });

  it('recognises a well-formed token and rejects a tampered one', () => {
    const value = generateTokenValue();
    expect(isWellFormedToken(value)).toBe(true);
    const flipped = value.slice(0, 10) + (value[10] === 'a' ? 'b' : 'a') + value.slice(11);
    expect(isWellFormedToken(flipped)).toBe(false);
    expect(isWellFormedToken('cap_short')).toBe(false);
    expect(isWellFormedToken('sk_' + value.slice(4))).toBe(false);
  });

  it('computes the CRC32 checksum in base62 with zero padding', () => {
    // CRC32("123456789") = 0xCBF43926 = 3421780262, which is "3jZRME" in base62
    expect(checksum('123456789')).toBe('3jZRME');
    expect(checksum('')).toBe('000000');
  });

  it('never generates the same value twice and hashes with SHA-256', () => {
    const values = new Set(Array.from({ length: 1000 }, generateTokenValue));
    expect(values.size).toBe(1000);
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
