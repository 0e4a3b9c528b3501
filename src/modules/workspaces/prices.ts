import { AppException } from '@/common/errors/app.exception';

/** The priced units, as the API and the CLI name them. */
export const PRICE_FIELDS = [
  'llm_prompt_per_1k',
  'llm_completion_per_1k',
  'stt_per_minute',
  'tts_per_1k_characters',
  'call_per_minute',
] as const;
export type PriceField = (typeof PRICE_FIELDS)[number];

/** A price table: the currency and each unit's price as a canonical decimal string (`"0.0005"`). */
export interface PriceTable {
  currency: string;
  prices: Record<PriceField, string>;
  updatedAt: Date;
}

const DECIMAL = /^(\d{1,9})(?:\.(\d{1,9}))?$/;
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** `"000.000500"` → `"0.0005"`: no leading or trailing zeros beyond one integer digit. */
export function canonicalDecimal(value: string): string {
  const [int, frac = ''] = value.split('.');
  const whole = int.replace(/^0+(?=\d)/, '');
  const fraction = frac.replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** A JSON number as the decimal it was written as: `5e-7` → `"0.0000005"` (JavaScript's shortest form, expanded). */
function plainDecimal(value: number): string {
  const [mantissa, exp] = String(value).split('e');
  if (exp === undefined) return mantissa;
  const [int, frac = ''] = mantissa.split('.');
  const shift = Number(exp);
  const digits = int + frac;
  const point = int.length + shift;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  return point >= digits.length
    ? digits + '0'.repeat(point - digits.length)
    : `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * A price from the API (a JSON number or a decimal string) or the CLI: at least 0, at most 9 digits before the
 * point and 9 after. Anything else is 422 INVALID_FORMAT naming the field.
 */
export function parsePrice(field: string, value: unknown): string {
  const text =
    typeof value === 'string'
      ? value.trim()
      : typeof value === 'number' && Number.isFinite(value)
        ? plainDecimal(value)
        : '';
  if (!DECIMAL.test(text))
    throw AppException.invalid(
      field,
      `${field} must be a decimal number from 0 with at most 9 digits before and after the point (0.0005)`,
    );
  return canonicalDecimal(text);
}

/** An ISO 4217 code the runtime knows (`USD`, `EUR`, `JPY`); else 422 INVALID_FORMAT on `currency`. */
export function parseCurrency(value: unknown): string {
  if (value === undefined || value === null || value === '')
    throw AppException.invalid('currency', 'currency is required', 'VALIDATION_ERROR');
  const code = typeof value === 'string' ? value.trim().toUpperCase() : '';
  if (!/^[A-Z]{3}$/.test(code) || !CURRENCIES.has(code))
    throw AppException.invalid('currency', 'currency must be an ISO 4217 code (USD, EUR, GBP, ...)');
  return code;
}
