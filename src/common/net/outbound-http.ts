import {
  assertAllowedUrl,
  BlockedAddressError,
  GuardPolicy,
  safeRequest,
  SafeRequestOptions,
  SafeResponse,
  TIMEOUT_CODE,
  TOO_LARGE_CODE,
} from './address-guard';

/**
 * The one way to fetch a URL a tenant gave (webhooks, crawled pages, a custom language model, intent webhooks,
 * and any later tenant-set endpoint): the URL is checked, the resolved address is checked at connect time on
 * every hop, redirects are followed only when asked and each target is checked again, time and size are
 * bounded, and a failure is a category the tenant may read (`refused: private address`, `timeout`,
 * `unreachable`), never a socket error that maps the inside network.
 */

export const OUTBOUND_URL_MAX_LENGTH = 2048;

/** A failed outbound request; `message` is the category, safe to store and show to the tenant. */
export class OutboundError extends Error {
  constructor(readonly category: string) {
    super(category);
    this.name = 'OutboundError';
  }
}

/** The tenant-facing category of any error an outbound request raised. */
export function outboundCategory(err: unknown): string {
  if (err instanceof OutboundError) return err.category;
  if (err instanceof BlockedAddressError) return `refused: ${err.category}`;
  const code = (err as { code?: unknown })?.code;
  if (code === TIMEOUT_CODE) return 'timeout';
  if (code === TOO_LARGE_CODE) return 'response too large';
  return 'unreachable';
}

/** The category of a request its caller aborted (`signal`): not a failure of the target. */
export const ABORTED = 'aborted';

export interface OutboundOptions extends SafeRequestOptions {
  /** Redirects followed (each target checked like the first URL); 0 answers the 3xx itself. */
  maxRedirects?: number;
}

/** One request through the guard; failures are thrown as OutboundError with a category. */
export async function outboundRequest(
  target: string | URL,
  policy: GuardPolicy,
  options: OutboundOptions = {},
): Promise<SafeResponse> {
  let url: string | URL = target;
  let request: SafeRequestOptions = options;
  const max = options.maxRedirects ?? 0;
  for (let hop = 0; ; hop++) {
    let res: SafeResponse;
    try {
      res = await safeRequest(url, policy, request);
    } catch (err) {
      throw new OutboundError(options.signal?.aborted ? ABORTED : outboundCategory(err));
    }
    if (!res.location || max === 0) return res;
    if (hop >= max) throw new OutboundError('too many redirects');
    // 303, and 301/302 after a POST, continue as a GET without the body, as browsers do.
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && request.method === 'POST'))
      request = { ...request, method: 'GET', body: undefined };
    url = res.location;
  }
}

export interface OutboundUrlRules {
  /** Private and loopback targets allowed (ALLOW_PRIVATE_NETWORK_TARGETS); plain http is then allowed too. */
  allowPrivate: boolean;
  /** Plain http allowed for public targets (crawled websites); https only otherwise. */
  allowHttp?: boolean;
}

/**
 * Why a URL may not be saved as an outbound target, or null when it may: a checked URL now avoids a failure
 * at every later delivery. Names are resolved at connect time, where the answer counts.
 */
export function outboundUrlProblem(value: unknown, rules: OutboundUrlRules): string | null {
  if (typeof value !== 'string') return 'must be a URL string';
  if (value.length > OUTBOUND_URL_MAX_LENGTH) return `must be at most ${OUTBOUND_URL_MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  const httpOk = rules.allowPrivate || rules.allowHttp;
  if (url.protocol !== 'https:' && !(httpOk && url.protocol === 'http:'))
    return httpOk ? 'must be an http or https URL' : 'must be an https URL';
  if (!url.hostname) return 'must name a host';
  try {
    assertAllowedUrl(url, { allowPrivate: rules.allowPrivate });
  } catch (err) {
    if (err instanceof BlockedAddressError)
      return err.category === 'private address'
        ? `must not target a private, loopback or reserved address (${err.message})`
        : `is not allowed: ${err.message}`;
    throw err;
  }
  return null;
}
