import { AppException } from '@/common/errors/app.exception';
import { DomainError, DomainErrorData } from '@/common/errors/domain-errors';

/**
 * Why a task failed, as stored (`failure_reason`, `failure_data`) and answered: a stable lower-case code and the data
 * it is about, never an exception's English (docs/api.md lists the codes).
 */
export interface TaskFailure {
  reason: string;
  data: DomainErrorData | null;
}

/**
 * A refusal of a task's call or message before it was made: a domain error's own reason and data; another
 * AppException's code in lower case, then `:` and the field when one is named (`validation_error:template_uuid`);
 * anything else `provider_error`.
 */
export function failureOf(err: unknown): TaskFailure {
  if (err instanceof DomainError) return { reason: err.reason, data: err.data };
  if (err instanceof AppException) {
    const field = err.options.field;
    return { reason: `${err.code.toLowerCase()}${field ? `:${field}` : ''}`, data: null };
  }
  return { reason: 'provider_error', data: null };
}
