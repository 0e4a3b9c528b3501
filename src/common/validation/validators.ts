import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import phoneMetadata from 'libphonenumber-js/metadata.max.json';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import { AppException } from '@/common/errors/app.exception';
import { outboundUrlProblem } from '@/common/net/outbound-http';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const E164_RE = /^\+[1-9]\d{7,14}$/;
export const HEX_COLOR_RE = /^#[0-9A-Fa-f]{6}$/;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}

/** E.164 (`+`, 8 to 15 digits, no separators) and a number that exists in its country's numbering plan. */
export function isE164(value: unknown): value is string {
  if (typeof value !== 'string' || !E164_RE.test(value)) return false;
  const parsed = parsePhoneNumberFromString(value);
  return !!parsed && parsed.isValid() && parsed.number === value;
}

/**
 * Why a value is not an E.164 number that exists (null when it is one): the wrong shape, a number its country's
 * numbering plan does not have (`+11234567890 is not a valid US number`; a calling code shared by several countries
 * names its main one), or a valid number written otherwise than in E.164 (a trunk 0 kept).
 */
export function phoneNumberProblem(value: unknown): string | null {
  if (typeof value !== 'string' || !E164_RE.test(value))
    return 'must be a phone number in E.164 format (+ and 8 to 15 digits)';
  const parsed = parsePhoneNumberFromString(value);
  if (!parsed) return `${value} is not a valid phone number (no country has its calling code)`;
  if (parsed.isValid())
    return parsed.number === value ? null : `${value} is not in E.164 form, which is ${parsed.number}`;
  const country = parsed.country ?? phoneMetadata.country_calling_codes[parsed.countryCallingCode]?.[0];
  return country
    ? `${value} is not a valid ${country} number`
    : `${value} is not a valid phone number for +${parsed.countryCallingCode}`;
}

/**
 * A field's message from a check's problem: a predicate (`must be ...`, `is not ...`) follows the field's name; a
 * sentence with its own subject (`+11234567890 is not a valid US number`) follows `<field>: `, as request
 * validation says it.
 */
export function fieldMessage(field: string, problem: string): string {
  return /^[a-z]/.test(problem) ? `${field} ${problem}` : `${field}: ${problem}`;
}

/** A phone number taken outside a DTO: else 422 INVALID_FORMAT on `field`, saying why (`phoneNumberProblem`). */
export function assertPhoneNumber(field: string, value: unknown): asserts value is string {
  const problem = phoneNumberProblem(value);
  if (problem) throw AppException.invalid(field, fieldMessage(field, problem));
}

const zoneCache = new Map<string, boolean>();
export function isIanaTimezone(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 64 || !/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$|^UTC$/.test(value))
    return false;
  let ok = zoneCache.get(value);
  if (ok === undefined) {
    try {
      ok = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone !== undefined;
    } catch {
      ok = false;
    }
    zoneCache.set(value, ok);
  }
  return ok;
}

/** Web addresses may be plain http only where the deployment allows private targets (tests). */
export const urlPolicy = { allowHttp: false };

export function isHttpsUrl(value: unknown, allowHttp = urlPolicy.allowHttp): value is string {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const url = new URL(value);
    const schemeOk = url.protocol === 'https:' || (allowHttp && url.protocol === 'http:');
    return schemeOk && !!url.hostname && !url.username && !url.password;
  } catch {
    return false;
  }
}

function simple(name: string, test: (v: unknown) => boolean, message: string) {
  return (options?: ValidationOptions) =>
    (object: object, propertyName: string): void =>
      registerDecorator({
        name,
        target: object.constructor,
        propertyName,
        options: { message: `$property ${message}`, ...options },
        validator: { validate: (v: unknown) => test(v) },
      });
}

/** The constraint name `isUuid` maps to the INVALID_UUID code. */
export const IsUuidValue = simple('isUuid', isUuid, 'must be a UUID');
/** The message says why: the shape, or the country whose numbering plan has no such number. */
export const IsE164 =
  (options?: ValidationOptions): PropertyDecorator =>
  (target, propertyName) =>
    registerDecorator({
      name: 'isE164',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (v: unknown) => isE164(v),
        defaultMessage: (args) => {
          const problem = phoneNumberProblem(args?.value) ?? 'must be a phone number in E.164 format';
          return problem.startsWith('must ') ? `${args?.property} ${problem}` : problem;
        },
      },
    });
export const IsHexColor = simple(
  'isHexColor',
  (v) => typeof v === 'string' && HEX_COLOR_RE.test(v),
  'must be a colour of the form #RRGGBB',
);
export const IsIanaTimezone = simple(
  'isIanaTimezone',
  isIanaTimezone,
  'must be an IANA time zone such as Europe/Paris',
);
/**
 * A URL the service will fetch for the tenant: https (http too where `allowHttp`), and no private, loopback or
 * reserved literal address; the message says why. The same rules as the outbound client (common/net).
 */
export function IsOutboundUrl(
  rules: { allowHttp?: boolean } = {},
  options?: ValidationOptions,
): PropertyDecorator {
  const problem = (v: unknown) => outboundUrlProblem(v, { allowPrivate: urlPolicy.allowHttp, ...rules });
  return (target, propertyName) =>
    registerDecorator({
      name: 'isOutboundUrl',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (v: unknown) => problem(v) === null,
        defaultMessage: (args) => `${args?.property} ${problem(args?.value) ?? 'must be a URL'}`,
      },
    });
}

/** The tenant-set endpoints the service calls (webhooks, a custom language model): https only. */
export const IsHttpsUrl = (options?: ValidationOptions): PropertyDecorator => IsOutboundUrl({}, options);

const isObjectItem = (x: unknown) => x !== null && typeof x === 'object' && !Array.isArray(x);

/**
 * Every item of the array is an object: `@ValidateNested({ each: true })` alone lets a nested array through.
 * The message starts with the first bad item's path (`contacts.1`), which the validation pipe reports as the field.
 */
export function IsObjectEach(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isObjectEach',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => !Array.isArray(value) || value.every(isObjectItem),
        defaultMessage: (args) => {
          const index = Array.isArray(args?.value) ? args.value.findIndex((x) => !isObjectItem(x)) : 0;
          return `${args?.property}.${index} must be an object`;
        },
      },
    });
}

/**
 * A list of nested objects validated as `type`: an array (of at most `max` items), every item an object, each
 * checked against the class. One decorator for the stack every nested list needs.
 */
export function ListOf(type: new () => object, max?: number): PropertyDecorator {
  const decorators: PropertyDecorator[] = [
    IsArray(),
    ValidateNested({ each: true }),
    IsObjectEach(),
    Type(() => type),
  ];
  if (max !== undefined) decorators.push(ArrayMaxSize(max));
  return (target, key) => decorators.forEach((d) => d(target, key));
}

/** The field may be left out, but not sent as null (IsOptional lets null through to the other rules' skip). */
export const OptionalNotNull = (): PropertyDecorator =>
  ValidateIf((_, value: unknown) => value !== undefined);
