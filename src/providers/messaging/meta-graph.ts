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

/** WhatsApp's largest media file (audio is at most 16 MB). */
const MEDIA_MAX_BYTES = 16 * 1024 * 1024;

/**
 * A WhatsApp media file: `GET /{media-id}` answers a short-lived `url`, fetched with the same token. The URL comes
 * from the Graph API (operator configuration, not a tenant), so no SSRF guard; no redirects, 10 s, 16 MB at most.
 */
export async function graphMedia(
  base: string,
  token: string | undefined,
  mediaId: string,
): Promise<{ bytes: Buffer; mimeType: string }> {
  const meta = await graphRequest<{ url?: unknown; mime_type?: unknown }>(
    base,
    token,
    'GET',
    encodeURIComponent(mediaId),
  );
  if (typeof meta?.url !== 'string' || !/^https?:\/\//.test(meta.url))
    throw new MessagingProviderError('MEDIA', 'The Graph API answered no media URL');
  let res: Response;
  try {
    res = await fetch(meta.url, {
      headers: { Authorization: `Bearer ${token}` },
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new MessagingProviderError('NETWORK', `The media download failed: ${(err as Error).message}`);
  }
  if (!res.ok)
    throw new MessagingProviderError(String(res.status), `The media download answered ${res.status}`);
  if (Number(res.headers.get('content-length') ?? 0) > MEDIA_MAX_BYTES)
    throw new MessagingProviderError('MEDIA', 'The media file is larger than 16 MB');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > MEDIA_MAX_BYTES)
      throw new MessagingProviderError('MEDIA', 'The media file is larger than 16 MB');
    chunks.push(Buffer.from(chunk));
  }
  const type = typeof meta.mime_type === 'string' ? meta.mime_type : res.headers.get('content-type');
  return { bytes: Buffer.concat(chunks), mimeType: type ?? 'application/octet-stream' };
}
