import { ArgumentMetadata, Injectable, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppException, FieldError } from '@/common/errors/app.exception';
import { ErrorCode } from '@/common/errors/error-codes';
import { isUuid } from '@/common/validation/validators';

const MISSING = new Set(['isDefined', 'isNotEmpty', 'arrayNotEmpty', 'isNotEmptyObject']);

/** Rules on a value's type: when one fails, its message says what the value should be, before any range rule. */
const TYPE_RULES = [
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'isObjectEach',
  'isEnum',
  'isIn',
  'isDateString',
  'isIso8601',
  'isISO8601',
];

/** class-validator's default message of `IsDefined`, said as `<field> is required`. */
const NOT_DEFINED = ' should not be null or undefined';

function codeFor(constraints: Record<string, string>): [ErrorCode, string] {
  const names = Object.keys(constraints);
  const missing = names.find((n) => MISSING.has(n));
  if (missing) return ['VALIDATION_ERROR', missing];
  const uuid = names.find((n) => n === 'isUuid');
  if (uuid) return ['INVALID_UUID', uuid];
  return ['INVALID_FORMAT', names.find((n) => TYPE_RULES.includes(n)) ?? names[0]];
}

/** Flattens class-validator errors into one entry per field, with dotted paths for nested fields. */
export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints && Object.keys(error.constraints).length) {
      const [code, name] = codeFor(error.constraints);
      let message = error.constraints[name];
      if (message.endsWith(NOT_DEFINED)) message = `${message.slice(0, -NOT_DEFINED.length)} is required`;
      let field = path;
      // A rule on a list's items may name the item (`contacts.1 must be an object`): that item is the field.
      const item = message.startsWith(`${error.property}.`) ? /^\S+?\.(\d+) /.exec(message) : null;
      if (item) {
        field = `${path}.${item[1]}`;
        message = `${field}${message.slice(item[0].length - 1)}`;
      } else if (message.startsWith(`${error.property} `))
        message = `${path}${message.slice(error.property.length)}`;
      else if (!message.includes(path)) message = `${path}: ${message}`;
      out.push({ code, field, message });
    }
    if (error.children?.length) out.push(...toFieldErrors(error.children, path));
  }
  return out;
}

/**
 * The first string (value or key) holding a NUL character, as a dotted path: PostgreSQL text and jsonb cannot
 * store U+0000, so such input is refused up front instead of failing in the database.
 */
export function findNul(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return at;
    const found = findNul(child, at);
    if (found !== null) return found;
  }
  return null;
}

/** After validation (unknown keys already dropped), a body or query value holding NUL is 422 naming its path. */
class ApiValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const out: unknown = await super.transform(value, metadata);
    if (metadata.type === 'body' || metadata.type === 'query') {
      const found = findNul(out);
      if (found !== null) {
        const field = found || metadata.data || metadata.type;
        throw AppException.invalid(field, `${field} must not contain the NUL character (U+0000)`);
      }
    }
    return out;
  }
}

/** The global pipe: strips unknown keys, converts, and answers 422 with the contract's codes. */
export function createValidationPipe(): ValidationPipe {
  return new ApiValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: false,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => AppException.validation(toFieldErrors(errors)),
  });
}

/** Path parameter pipe: a malformed UUID is 422 INVALID_UUID naming the parameter. */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    const field = metadata.data ?? 'uuid';
    if (!isUuid(value)) throw AppException.invalid(field, `${field} must be a UUID`, 'INVALID_UUID');
    return value.toLowerCase();
  }
}

const SLUG_RE = /^[a-z0-9](-?[a-z0-9])*$/;

/** Path parameter pipe for workspace slugs: anything that cannot be a slug is 422 naming the parameter. */
@Injectable()
export class SlugParamPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    const field = metadata.data ?? 'slug';
    if (typeof value !== 'string' || value.length > 63 || !SLUG_RE.test(value))
      throw AppException.invalid(
        field,
        `${field} must be a workspace slug (lowercase letters, digits, hyphens)`,
      );
    return value;
  }
}
