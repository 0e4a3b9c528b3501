import { registerDecorator, ValidationOptions } from 'class-validator';
import { isUuid } from './validators';

/**
 * Every item of a list is a UUID (INVALID_UUID on the list). A value that is not a list passes here, so that
 * `@IsArray()` reports it as INVALID_FORMAT rather than as a malformed UUID.
 */
export function IsUuidList(options?: ValidationOptions): PropertyDecorator {
  return (object: object, propertyName: string | symbol): void =>
    registerDecorator({
      name: 'isUuid',
      target: object.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must contain only UUIDs', ...options },
      validator: { validate: (v: unknown) => !Array.isArray(v) || v.every((item) => isUuid(item)) },
    });
}
