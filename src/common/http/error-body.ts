import { AppException } from '@/common/errors/app.exception';

export interface GeneralErrorBody {
  success: false;
  message: string;
  error: { code: string; details: string; field?: string; retryAfter?: number };
}

export interface ShortErrorBody {
  success: false;
  message: string;
  data: [];
}

export function generalBody(e: AppException): GeneralErrorBody {
  const error: GeneralErrorBody['error'] = { code: e.code, details: e.options.details ?? e.message };
  if (e.options.field !== undefined) error.field = e.options.field;
  if (e.options.retryAfter !== undefined) error.retryAfter = e.options.retryAfter;
  return { success: false, message: e.message, error };
}

export function shortBody(e: AppException): ShortErrorBody {
  return { success: false, message: e.message, data: [] };
}
