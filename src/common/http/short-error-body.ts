import { SetMetadata } from '@nestjs/common';

/** Route metadata: which statuses of the route's answers use the short body. */
export const SHORT_ERROR_STATUSES = 'cap:short-error-statuses';

/**
 * The specification shows the short error body on a few routes; this names which of their answers use it. The
 * request is marked by the body guard, before any body or idempotency check, so that those refusals take it too.
 */
export const ShortErrorBody = (statuses: (status: number) => boolean): MethodDecorator & ClassDecorator =>
  SetMetadata(SHORT_ERROR_STATUSES, statuses);
