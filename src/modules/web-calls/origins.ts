import { AppException } from '@/common/errors/app.exception';

const LOCAL = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The allowed page origins as given (`https://shop.example.com`, or http on localhost), normalised and without
 * repeats; 422 naming the first that is not exactly an origin (a path, a query, another scheme).
 */
export function checkOrigins(values: string[]): string[] {
  const out: string[] = [];
  values.forEach((value, i) => {
    const origin = asOrigin(value);
    if (!origin)
      throw AppException.invalid(
        `allowed_origins[${i}]`,
        `allowed_origins[${i}] must be an origin such as https://shop.example.com (http only on localhost)`,
        'VALIDATION_ERROR',
      );
    if (!out.includes(origin)) out.push(origin);
  });
  return out;
}

function asOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const https = url.protocol === 'https:';
  if (!https && !(url.protocol === 'http:' && LOCAL.has(url.hostname))) return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    return null;
  if (value.replace(/\/$/, '').toLowerCase() !== url.origin) return null;
  return url.origin;
}

/**
 * Whether a page of `origin` may open a web call: no Origin (not a browser: the token alone authenticates), the
 * API's own page (the same host as the request, or PUBLIC_BASE_URL's), or an origin the workspace allows.
 */
export function originAllowed(
  origin: string | undefined,
  host: string | undefined,
  ownOrigin: string,
  allowed: readonly string[],
): boolean {
  if (origin === undefined) return true;
  const normalised = origin.toLowerCase();
  if (normalised === ownOrigin || allowed.includes(normalised)) return true;
  try {
    return !!host && new URL(normalised).host === host.toLowerCase();
  } catch {
    return false;
  }
}
