import { FieldError } from '@/common/errors/app.exception';
import { ContactFieldType } from './contact-field.entity';

export interface FieldDefinition {
  key: string;
  type: ContactFieldType;
  options: string[];
}

export type CustomValue = string | number | boolean;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
export const MAX_TEXT_VALUE = 10_000;

/** A calendar date `YYYY-MM-DD` that exists (no 2026-02-30). */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value;
}

/** Whether a stored or supplied value fits a definition; the message says what was expected. */
export function checkValue(def: FieldDefinition, value: unknown): string | null {
  switch (def.type) {
    case 'text':
      return typeof value === 'string' && value.length <= MAX_TEXT_VALUE
        ? null
        : `must be a string of at most ${MAX_TEXT_VALUE} characters`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be a boolean';
    case 'date':
      return isCalendarDate(value) ? null : 'must be a date of the form YYYY-MM-DD';
    case 'select':
      return typeof value === 'string' && def.options.includes(value)
        ? null
        : `must be one of: ${def.options.join(', ')}`;
  }
}

/**
 * Checks `custom_fields` against the workspace's definitions. An unknown key is VALIDATION_ERROR, a value of
 * the wrong kind INVALID_FORMAT; `null` means "remove this value" and is kept as null for the caller.
 */
export function checkCustomFields(
  defs: FieldDefinition[],
  values: Record<string, unknown>,
  path: string,
): { values: Record<string, CustomValue | null>; errors: FieldError[] } {
  const byKey = new Map(defs.map((d) => [d.key, d]));
  const errors: FieldError[] = [];
  const out: Record<string, CustomValue | null> = {};
  for (const [key, value] of Object.entries(values)) {
    const field = `${path}.${key}`;
    const def = byKey.get(key);
    if (!def) {
      errors.push({ code: 'VALIDATION_ERROR', field, message: `${field} is not a defined custom field` });
      continue;
    }
    if (value === null) {
      out[key] = null;
      continue;
    }
    const problem = checkValue(def, value);
    if (problem) errors.push({ code: 'INVALID_FORMAT', field, message: `${field} ${problem}` });
    else out[key] = value as CustomValue;
  }
  return { values: out, errors };
}

/** Applies checked changes to stored values: null removes a key. */
export function mergeCustomFields(
  current: Record<string, CustomValue>,
  changes: Record<string, CustomValue | null>,
): Record<string, CustomValue> {
  const next: Record<string, CustomValue> = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}
