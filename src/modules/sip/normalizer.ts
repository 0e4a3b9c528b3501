import { AppException } from '@/common/errors/app.exception';

/**
 * The source product's number normalizer of a PBX connector: a number of `condition_length` digits (any length when
 * null) that starts with `condition_prefix` (any when null or "") is written with `default_prefix` before it.
 */
export interface PbxNormalizer {
  default_prefix: string;
  condition_length: number | null;
  condition_prefix: string | null;
}

/** What `normalizer` holds: that object, or the text form (how the PBX writes numbers, such as `e164`). */
export type PbxNormalizerValue = string | PbxNormalizer;

export const NORMALIZER_TEXT_MAX = 200;
const SHAPE = `a string (up to ${NORMALIZER_TEXT_MAX} characters) or an object {default_prefix, condition_length, condition_prefix}`;
const PREFIX_RE = /^\+?[0-9]{1,7}$/;
const CONDITION_RE = /^\+?[0-9]{0,15}$/;

/** How a refused value is named in a message: its JSON type (and a string, as written). */
function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 20))}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number') return `the number ${value}`;
  return `a ${typeof value}`;
}

/**
 * A body's `normalizer` (undefined: not sent; null: none) checked and written as it is stored and answered: the text
 * as given, the object with its three keys (those left out null, others dropped). Anything else is 422 naming the
 * key and the type it wants.
 */
export function readNormalizer(value: unknown): PbxNormalizerValue | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value === 'string') {
    if (value.length > NORMALIZER_TEXT_MAX)
      throw AppException.invalid('normalizer', `normalizer must be ${SHAPE}; this one has ${value.length}`);
    return value;
  }
  if (typeof value !== 'object' || Array.isArray(value))
    throw AppException.invalid('normalizer', `normalizer must be ${SHAPE}, not ${kind(value)}`);
  const given = value as Record<string, unknown>;
  const prefix = given.default_prefix;
  if (prefix === undefined || prefix === null || prefix === '')
    throw AppException.invalid(
      'normalizer.default_prefix',
      'normalizer.default_prefix is required: a string such as "+1"',
      'VALIDATION_ERROR',
    );
  if (typeof prefix !== 'string' || !PREFIX_RE.test(prefix))
    throw AppException.invalid(
      'normalizer.default_prefix',
      `normalizer.default_prefix must be a string of 1 to 7 digits after an optional + (such as "+1"), not ${kind(prefix)}`,
    );
  const length = given.condition_length ?? null;
  if (length !== null && !(Number.isInteger(length) && (length as number) >= 1 && (length as number) <= 15))
    throw AppException.invalid(
      'normalizer.condition_length',
      `normalizer.condition_length must be an integer from 1 to 15 (or null: any length), not ${kind(length)}`,
    );
  const condition = given.condition_prefix ?? null;
  if (condition !== null && (typeof condition !== 'string' || !CONDITION_RE.test(condition)))
    throw AppException.invalid(
      'normalizer.condition_prefix',
      `normalizer.condition_prefix must be a string of up to 15 digits after an optional + ("" or null: any), not ${kind(condition)}`,
    );
  return {
    default_prefix: prefix,
    condition_length: length as number | null,
    condition_prefix: condition as string | null,
  };
}
