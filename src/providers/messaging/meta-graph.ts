import { isTransientStatus, MessagingProviderError } from './messaging.port';

const TIMEOUT_MS = 10_000;

/** One Graph API call with the system user's token; a Graph error becomes MessagingProviderError(code, message). */
export async function graphRequest<T>(
  base: string,
  token: string | undefined,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  if (!token) throw new MessagingProviderError('NOT_CONFIGURED', 'The Meta Graph API is not configured');
  const url = /^https?:\/\//.test(path) ? path : `${base}/${path.replace(/^\//, '')}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new MessagingProviderError(
      'NETWORK',
      `The Meta Graph API is unreachable: ${(err as Error).message}`,
      true,
    );
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const error = (json as { error?: { code?: number; message?: string; error_user_msg?: string } } | null)
      ?.error;
    throw new MessagingProviderError(
      String(error?.code ?? res.status),
      error?.error_user_msg ?? error?.message ?? `The Meta Graph API answered ${res.status}`,
      isTransientStatus(res.status),
    );
  }
  return json as T;
}
