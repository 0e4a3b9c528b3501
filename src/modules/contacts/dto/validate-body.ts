import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppException } from '@/common/errors/app.exception';
import { toFieldErrors } from '@/common/http/validation';

/**
 * Validates a plain object with the same rules and error codes as the global pipe. Used where one route takes
 * two body shapes, and by the service methods other modules call, so both get the API's checks.
 */
export function validateBody<T extends object>(cls: ClassConstructor<T>, body: unknown): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new AppException('BAD_REQUEST', 'The request body must be a JSON object');
  const instance = plainToInstance(cls, body, { enableImplicitConversion: false });
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: false });
  if (errors.length) throw AppException.validation(toFieldErrors(errors));
  return instance;
}
