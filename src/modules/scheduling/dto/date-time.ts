import { registerDecorator, ValidationOptions } from 'class-validator';

const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

/** An ISO 8601 date-time with a time zone (`2026-11-22T09:00:00Z`, `...+01:00`) that names a real instant. */
export function IsDateTime(options?: ValidationOptions): PropertyDecorator {
  return (object: object, propertyName: string | symbol): void =>
    registerDecorator({
      name: 'isDateTime',
      target: object.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must be an ISO 8601 date-time with a time zone', ...options },
      validator: {
        validate: (v: unknown) =>
          typeof v === 'string' &&
          DATE_TIME_RE.test(v) &&
          !Number.isNaN(Date.parse(v)) &&
          realDay(v.slice(0, 10)),
      },
    });
}

function realDay(day: string): boolean {
  return new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;
}

/** A calendar day `YYYY-MM-DD` (query filters). */
export function IsDay(): PropertyDecorator {
  return (object: object, propertyName: string | symbol): void =>
    registerDecorator({
      name: 'isDay',
      target: object.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must be a date of the form YYYY-MM-DD' },
      validator: { validate: (v: unknown) => typeof v === 'string' && DAY_RE.test(v) && realDay(v) },
    });
}
