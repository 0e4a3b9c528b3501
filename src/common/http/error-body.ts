import { AppException } from '@/common/errors/app.exception';

export interface GeneralErrorBody {
  success: false;
  message: string;
  error: { code: string; details: string; field?: string; retryAfter?: number };
  data?: unknown;
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
  const body: GeneralErrorBody = { success: false, message: e.message, error };
  if (e.options.data !== undefined) body.data = e.options.data;
  return body;
}

export function shortBody(e: AppException): ShortErrorBody {
  return { success: false, message: e.message, data: [] };
}
