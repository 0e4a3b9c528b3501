import { registerDecorator, ValidationOptions } from 'class-validator';
import { parseInstant } from '../time-range';

/** An ISO 8601 date or date-time with a time zone, the form `parseInstant` accepts. */
export function IsIsoInstant(options?: ValidationOptions) {
  return (object: object, propertyName: string): void =>
    registerDecorator({
      name: 'isIsoInstant',
      target: object.constructor,
      propertyName,
      options: {
        message:
          '$property must be an ISO 8601 date (2026-11-01) or date-time with a time zone (2026-11-01T08:00:00Z)',
        ...options,
      },
      validator: {
        validate: (value: unknown) => {
          try {
            parseInstant(propertyName, value);
            return true;
          } catch {
            return false;
          }
        },
      },
    });
}
