import { ErrorCode, ERROR_STATUS } from './error-codes';

export interface FieldError {
  code: ErrorCode;
  field: string;
  message: string;
}

export interface AppExceptionOptions {
  details?: string;
  field?: string;
  retryAfter?: number;
  /** Several validation failures; message and details join them with ' | '. */
  fieldErrors?: FieldError[];
  /** What the general error body carries as `data` beside the error (the route's documented empty answer). */
  data?: unknown;
}

/** The one exception services throw: a code from the contract, a human message, and optional field data. */
export class AppException extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: AppExceptionOptions = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  static notFound(what = 'Resource'): AppException {
    return new AppException('RESOURCE_NOT_FOUND', `${what} not found`);
  }

  static validation(fieldErrors: FieldError[]): AppException {
    const message = fieldErrors.map((e) => e.message).join(' | ');
    return new AppException(fieldErrors[0].code, message, {
      details: message,
      field: fieldErrors[0].field,
      fieldErrors,
    });
  }

  /** One field failed: 422 with the code and the field named. */
  static invalid(field: string, message: string, code: ErrorCode = 'INVALID_FORMAT'): AppException {
    return AppException.validation([{ code, field, message }]);
  }

  static conflict(message: string): AppException {
    return new AppException('CONFLICT', message);
  }
}
