import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { OUTBOUND_URL_MAX_LENGTH } from '@/common/net/outbound-http';

/** Where @ApiProperty keeps a property's options (`API_MODEL_PROPERTIES`, not exported). */
const API_MODEL_PROPERTIES = 'swagger/apiModelProperties';

/** OpenAPI keywords one class-validator constraint implies; `each` constraints apply to the items. */
type Derived = Record<string, unknown>;

const MAX_DATE_TIME = 35; // 2026-11-22T09:00:00.123456+01:00 with room to spare

/** What each constraint name (built-in or the project's own) says about the value's shape. */
const BY_NAME: Record<string, (constraints: unknown[]) => Derived> = {
  maxLength: ([n]) => ({ maxLength: n }),
  minLength: ([n]) => ({ minLength: n }),
  isLength: ([min, max]) => ({ minLength: min, ...(max !== undefined ? { maxLength: max } : {}) }),
  arrayMaxSize: ([n]) => ({ maxItems: n }),
  arrayMinSize: ([n]) => ({ minItems: n }),
  arrayNotEmpty: () => ({ minItems: 1 }),
  arrayUnique: () => ({ uniqueItems: true }),
  min: ([n]) => ({ minimum: n }),
  max: ([n]) => ({ maximum: n }),
  isIn: ([values]) => ({ enum: values }),
  isUuid: () => ({ format: 'uuid', maxLength: 36 }),
  isEmail: () => ({ format: 'email' }),
  isOutboundUrl: () => ({ format: 'uri', maxLength: OUTBOUND_URL_MAX_LENGTH }),
  isDateTime: () => ({ format: 'date-time', maxLength: MAX_DATE_TIME }),
  isDay: () => ({ format: 'date', maxLength: 10 }),
  isIsoInstant: () => ({ pattern: '^\\d{4}-\\d{2}-\\d{2}', maxLength: MAX_DATE_TIME }),
  isIso8601: () => ({ pattern: '^\\d{4}-\\d{2}-\\d{2}', maxLength: MAX_DATE_TIME }),
  isE164: () => ({ pattern: '^\\+[1-9]\\d{7,14}$', maxLength: 16 }),
  isHexColor: () => ({ pattern: '^#[0-9A-Fa-f]{6}$', maxLength: 7 }),
  isIanaTimezone: () => ({ pattern: '^[A-Za-z_]+(/[A-Za-z0-9_+-]+)*$', maxLength: 64 }),
  isISO31661Alpha2: () => ({ pattern: '^[A-Za-z]{2}$', maxLength: 2 }),
  matches: ([re]) => (re instanceof RegExp && !re.flags.replace('u', '') ? { pattern: re.source } : {}),
};

function derive(list: ValidationMetadata[]): { own: Derived; items: Derived } {
  const own: Derived = {};
  const items: Derived = {};
  for (const m of list) {
    const rule = m.name ? BY_NAME[m.name] : undefined;
    if (rule) Object.assign(m.each ? items : own, rule(m.constraints ?? []));
  }
  return { own, items };
}

let applied = false;

/**
 * Copies the limits class-validator enforces (lengths, sizes, ranges, formats, enums) into the Swagger property
 * metadata of every documented DTO, so a new DTO's schema says what its validators check without repeating it.
 * The validators are the truth: a derived keyword replaces a hand-written one.
 */
export function documentValidationLimits(): void {
  if (applied) return;
  applied = true;
  // class-validator keeps its metadata by target class; the map is the one list of every validated class.
  const storage = getMetadataStorage() as unknown as {
    validationMetadatas: Map<unknown, ValidationMetadata[]>;
  };
  for (const [target, list] of storage.validationMetadatas) {
    if (typeof target !== 'function') continue;
    const byProperty = new Map<string, ValidationMetadata[]>();
    for (const m of list) byProperty.set(m.propertyName, [...(byProperty.get(m.propertyName) ?? []), m]);
    for (const [property, metas] of byProperty) {
      const current = Reflect.getMetadata(API_MODEL_PROPERTIES, target.prototype, property) as
        Record<string, unknown> | undefined;
      if (!current) continue;
      const { own, items } = derive(metas);
      // A list of distinct values from an enum holds at most one of each.
      if (own.uniqueItems && Array.isArray(items.enum) && own.maxItems === undefined)
        own.maxItems = items.enum.length;
      const next: Record<string, unknown> = { ...current, ...own };
      if (Object.keys(items).length) {
        // Nest describes `type: [String]` items from `type`; the item keywords ride in `items`.
        const base = (current.items as Record<string, unknown> | undefined) ?? {};
        next.items = { ...base, ...items };
      }
      // An enum on a whole list is not what Nest expects; keep the hand-written one there.
      if ('enum' in own && current.isArray) {
        if (current.enum === undefined) delete next.enum;
        else next.enum = current.enum;
      }
      Reflect.defineMetadata(API_MODEL_PROPERTIES, next, target.prototype, property);
    }
  }
}
