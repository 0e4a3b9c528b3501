import * as dns from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import * as ipaddr from 'ipaddr.js';

/** Why a target was refused; the message is safe to show to the user who gave the URL. */
export class BlockedAddressError extends Error {
  readonly code = 'BLOCKED_ADDRESS';

  constructor(
    message: string,
    /** What the tenant reads: the address is not public, or the URL itself is not acceptable. */
    readonly category: 'private address' | 'invalid URL' = 'private address',
  ) {
    super(message);
  }
}

/** Codes of the failures safeRequest raises itself, read by the outbound client's categories. */
export const TIMEOUT_CODE = 'OUTBOUND_TIMEOUT';
export const TOO_LARGE_CODE = 'OUTBOUND_TOO_LARGE';

export interface GuardPolicy {
  /** Lets loopback and private targets through (ALLOW_PRIVATE_NETWORK_TARGETS, tests only). */
  allowPrivate: boolean;
}

/** The range name of an address that outbound requests may not reach, or null when it is public unicast. */
export function blockedRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.parse(address);
  // Only globally routable unicast passes: loopback, private, link-local, unique-local, multicast, reserved,
  // unspecified, carrier-grade NAT, IPv4-mapped and the IPv4-embedding IPv6 forms (6to4, NAT64, Teredo) do not.
  const range = parsed.range();
  if (range !== 'unicast') return range;
  // The deprecated IPv4-compatible form (::a.b.c.d, RFC 4291 2.5.5.1) has no range of its own in ipaddr.js.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0))
    return 'ipv4Compatible';
  return null;
}

const IPV4_LOOSE = /^(0x[0-9a-f]+|[0-9]+)(\.(0x[0-9a-f]+|[0-9]+)){0,3}$/i;

/** Checks a URL before any connection: scheme, and a literal IP host (in any IPv4 notation) against the policy. */
export function assertAllowedUrl(raw: string | URL, policy: GuardPolicy): URL {
  let url: URL;
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw;
  } catch {
    throw new BlockedAddressError(`invalid URL: ${String(raw).slice(0, 200)}`, 'invalid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new BlockedAddressError(`unsupported scheme ${url.protocol.replace(':', '')}`, 'invalid URL');
  if (url.username || url.password)
    throw new BlockedAddressError('URLs with credentials are not allowed', 'invalid URL');
  if (policy.allowPrivate) return url;
  // The parser lowercases the name and decodes its escapes; a trailing dot (the DNS root, `localhost.`) names the
  // same host as without it, so every check reads the name without them.
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
  if (!host) throw new BlockedAddressError(`host ${url.hostname} is not a name`, 'invalid URL');
  // The WHATWG parser already turns decimal, hex and octal IPv4 forms into dotted quads; anything still
  // looking like a loose IPv4 literal is refused rather than handed to a resolver that may read it otherwise.
  if (!ipaddr.isValid(host) && IPV4_LOOSE.test(host))
    throw new BlockedAddressError(`address ${host} is not allowed (non-canonical IPv4)`);
  if (ipaddr.isValid(host)) {
    const range = blockedRange(host);
    if (range) throw new BlockedAddressError(`address ${host} is not allowed (${range})`);
  }
  if (host === 'localhost' || host.endsWith('.localhost'))
    throw new BlockedAddressError(`host ${host} is not allowed (loopback)`);
  return url;
}

/**
 * A `lookup` for http/https requests: resolves the name and refuses the connection when any address is not
 * public. It runs at connect time, so a name that resolves differently between check and connect (DNS
 * rebinding) is still caught.
 */
export function guardedLookup(policy: GuardPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses;
      if (!policy.allowPrivate) {
        for (const a of list) {
          const range = blockedRange(a.address);
          if (range) {
            const e = new BlockedAddressError(
              `host ${hostname} resolves to ${a.address} (${range}), not allowed`,
            );
            return callback(e as NodeJS.ErrnoException, '', 0);
          }
        }
      }
      if (list.length === 0) return callback(new Error(`host ${hostname} has no address`), '', 0);
      if (options.all) return callback(null, list as unknown as string, 0);
      callback(null, list[0].address, list[0].family);
    });
  };
}

export interface SafeRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole request deadline, connect to last byte. */
  timeoutMs?: number;
  /** The body is cut off (and `truncated` set) past this many bytes, or refused when `failOnOverflow`. */
  maxBytes?: number;
  failOnOverflow?: boolean;
  /**
   * Reuse connections (a keep-alive pool per protocol and policy, so every pooled socket was opened through this
   * policy's connect-time check): for a service called on every turn (the language model), where a fresh TCP and TLS
   * handshake per request would cost more than the request. A request that fails because the server closed a reused
   * idle socket is sent once more on a new one.
   */
  keepAlive?: boolean;
  /** Aborts the request: it is destroyed (its connection closed) and the call rejects. */
  signal?: AbortSignal;
}

export interface SafeResponse {
  url: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
  /** The absolute target of a 3xx answer; never followed here: the caller decides and calls again. */
  location?: string;
}

/**
 * One HTTP(S) request through the address guard: checked URL, guarded DNS at connect time, a deadline, a byte
 * cap, and no redirect following (each redirect target must come back through this function to be checked).
 */
export async function safeRequest(
  target: string | URL,
  policy: GuardPolicy,
  options: SafeRequestOptions = {},
): Promise<SafeResponse> {
  try {
    return await sendOnce(target, policy, options);
  } catch (err) {
    if (!(err as { staleSocket?: boolean }).staleSocket) throw err;
    return sendOnce(target, policy, options);
  }
}

const pools = new Map<string, http.Agent>();

/** The keep-alive pool of a protocol and policy. */
function pooled(protocol: string, policy: GuardPolicy): http.Agent {
  const key = `${protocol} ${JSON.stringify(policy)}`;
  let agent = pools.get(key);
  if (!agent) {
    const Agent = protocol === 'https:' ? https.Agent : http.Agent;
    // Idle sockets close after 4 s (under the usual 5 s server keep-alive), newest reused first.
    agent = new Agent({ keepAlive: true, maxFreeSockets: 32, timeout: 4_000, scheduling: 'lifo' });
    pools.set(key, agent);
  }
  return agent;
}

async function sendOnce(
  target: string | URL,
  policy: GuardPolicy,
  options: SafeRequestOptions,
): Promise<SafeResponse> {
  const url = assertAllowedUrl(target, policy);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise<SafeResponse>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, res?: SafeResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(res!);
    };
    const req = lib.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        lookup: guardedLookup(policy),
        // Without keepAlive a fresh connection per request; with it, a pool whose every socket passed this policy's
        // connect-time check (a socket is never shared between policies).
        agent: options.keepAlive ? pooled(url.protocol, policy) : false,
        signal: options.signal,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const location =
          status >= 300 && status < 400 && res.headers.location
            ? new URL(res.headers.location, url).toString()
            : undefined;
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          if (size + chunk.length > maxBytes) {
            truncated = true;
            chunks.push(chunk.subarray(0, maxBytes - size));
            size = maxBytes;
            req.destroy();
            if (options.failOnOverflow)
              return finish(
                Object.assign(new Error(`response larger than ${maxBytes} bytes`), { code: TOO_LARGE_CODE }),
              );
            return finish(null, {
              url: url.toString(),
              status,
              headers: res.headers,
              body: Buffer.concat(chunks),
              truncated,
              location,
            });
          }
          size += chunk.length;
          chunks.push(chunk);
        });
        res.on('end', () =>
          finish(null, {
            url: url.toString(),
            status,
            headers: res.headers,
            body: Buffer.concat(chunks),
            truncated,
            location,
          }),
        );
        res.on('error', (e) => finish(e));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish(
        Object.assign(new Error(`request to ${url.host} timed out after ${timeoutMs} ms`), {
          code: TIMEOUT_CODE,
        }),
      );
    }, timeoutMs);
    req.on('error', (e) => {
      // The server closed an idle pooled socket as this request went out on it: nothing reached it.
      const stale = req.reusedSocket && (e as NodeJS.ErrnoException).code === 'ECONNRESET';
      finish(stale ? Object.assign(e, { staleSocket: true }) : e);
    });
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
