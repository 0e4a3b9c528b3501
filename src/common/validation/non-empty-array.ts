import { registerDecorator, ValidationOptions } from 'class-validator';

/**
 * An empty array is a missing value (VALIDATION_ERROR: the constraint is named like class-validator's
 * arrayNotEmpty); anything that is not an array is left to IsArray (INVALID_FORMAT).
 */
export function NotEmptyWhenArray(options?: ValidationOptions): PropertyDecorator {
  return (object: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'arrayNotEmpty',
      target: object.constructor,
      propertyName: propertyName as string,
      options: { message: `$property should not be empty`, ...options },
      validator: { validate: (v: unknown) => !Array.isArray(v) || v.length > 0 },
    });
}
