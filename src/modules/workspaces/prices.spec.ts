import { AppException } from '@/common/errors/app.exception';
import { parseCurrency, parsePrice } from './prices';

const fieldOf = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    return (err as AppException).options.fieldErrors?.[0];
  }
  return undefined;
};

describe('price table values', () => {
  it('takes decimal strings and JSON numbers as the decimals they were written as', () => {
    expect(parsePrice('p', '0.0005')).toBe('0.0005');
    expect(parsePrice('p', 0.0005)).toBe('0.0005');
    expect(parsePrice('p', 5e-7)).toBe('0.0000005');
    expect(parsePrice('p', '007.50')).toBe('7.5');
    expect(parsePrice('p', 0)).toBe('0');
    expect(parsePrice('p', '123456789.123456789')).toBe('123456789.123456789');
  });

  it('refuses negatives, exponents, more than 9 digits either side and anything not a number: 422 naming the field', () => {
    for (const bad of [-1, '-1', '1e-3', 1.5e-9, '0.0000000001', 1e10, 'free', '', true, null, {}])
      expect(fieldOf(() => parsePrice('stt_per_minute', bad))).toMatchObject({
        code: 'INVALID_FORMAT',
        field: 'stt_per_minute',
      });
  });

  it('takes ISO 4217 codes, upper-casing them; a missing one is VALIDATION_ERROR', () => {
    expect(parseCurrency('usd')).toBe('USD');
    expect(parseCurrency('JPY')).toBe('JPY');
    expect(fieldOf(() => parseCurrency('XYZ'))).toMatchObject({ code: 'INVALID_FORMAT', field: 'currency' });
    expect(fieldOf(() => parseCurrency(undefined))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'currency',
    });
  });
});
