import express, { NextFunction, Request, Response } from 'express';
import { AppException } from '@/common/errors/app.exception';

/** What a JSON body may be; docs/api.md states the same figures. */
export const JSON_BODY_LIMIT = '1mb';
export const JSON_MAX_DEPTH = 32;
export const CONTENT_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'];

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);
const JSON_TYPES = ['application/json', 'application/*+json'];
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A client-side body problem the parser found; the body guard raises it as a 4xx after the auth checks. */
export class BodyProblem extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }

  toAppException(): AppException {
    return new AppException(this.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST', this.message);
  }
}

/**
 * The nesting depth of a JSON text, read from its raw bytes (multi-byte UTF-8 never holds ASCII bytes): refused
 * before parsing, so no later transform recurses through a body nested thousands of levels deep.
 */
export function jsonDepthExceeds(raw: Buffer, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

const TOO_DEEP = 'entity.too.deep';

/**
 * A `\uD800`-`\uDFFF` escape: the only way a lone surrogate reaches a string (raw bytes decode as UTF-8). Bodies
 * without any `\u` escape (nearly all) are not copied to a string to look.
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const SURROGATES = Symbol('surrogates');
type Flagged = { [SURROGATES]?: boolean };
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Lone surrogates become U+FFFD, as UTF-8 encoding would make them anyway: stored text is the same whichever
 * column takes it (PostgreSQL's jsonb refuses them outright).
 */
export function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\uFFFD');
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [wellFormed(k) as string, wellFormed(v)]),
    );
  return value;
}

/** The message of every parser failure a client can cause, naming the header or limit concerned. */
export function describeParseError(err: unknown, encoding = 'identity'): BodyProblem {
  const e = err as { type?: string; status?: number; code?: string; charset?: string; encoding?: string };
  switch (e?.type) {
    case 'entity.too.large':
      return new BodyProblem(413, `Request body larger than ${JSON_BODY_LIMIT}`);
    case TOO_DEEP:
      return new BodyProblem(400, `JSON body nested deeper than ${JSON_MAX_DEPTH} levels`);
    case 'entity.parse.failed':
      return new BodyProblem(400, 'Malformed JSON in request body');
    case 'charset.unsupported':
      return new BodyProblem(400, `Content-Type charset ${e.charset ?? ''} is not supported: use utf-8`);
    case 'encoding.unsupported':
      return new BodyProblem(
        400,
        `Content-Encoding ${e.encoding ?? ''} is not supported: use one of ${CONTENT_ENCODINGS.join(', ')}`,
      );
    case 'request.size.invalid':
      return new BodyProblem(400, 'Content-Length does not match the body received');
    case 'request.aborted':
      return new BodyProblem(400, 'Request body was not received in full');
  }
  // zlib's verdicts on a body whose bytes do not match its Content-Encoding
  if (typeof e?.code === 'string' && e.code.startsWith('Z_'))
    return new BodyProblem(
      400,
      `Content-Encoding ${encoding} does not match the body: it is not ${encoding} data`,
    );
  return new BodyProblem(400, 'Request body could not be read');
}

/** One Content-Encoding value (no list, no repetition) among those decoded here, or null. */
function contentEncodingProblem(req: Request): BodyProblem | null {
  const raw = req.headers['content-encoding'];
  if (raw === undefined) return null;
  const value = raw.trim().toLowerCase();
  if (CONTENT_ENCODINGS.includes(value)) return null;
  return new BodyProblem(
    400,
    `Content-Encoding ${raw.slice(0, 50)} is not supported: use one of ${CONTENT_ENCODINGS.join(', ')}`,
  );
}

/** A charset parameter other than utf-8 on the JSON Content-Type. */
function charsetProblem(req: Request): BodyProblem | null {
  const type = req.headers['content-type'];
  if (!type) return null;
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(type);
  if (!match || /^utf-?8$/i.test(match[1])) return null;
  return new BodyProblem(400, `Content-Type charset ${match[1].slice(0, 50)} is not supported: use utf-8`);
}

/**
 * The JSON body parser of POST, PUT and PATCH: UTF-8 only, the listed encodings, the size and depth limits.
 * Problems are recorded with `record`, not answered, so the token and rate checks still come first. Other
 * methods take no body: whatever they carry is left unread.
 */
export function jsonBodyParser(
  record: (req: Request, problem: BodyProblem) => void,
): (req: Request, res: Response, next: NextFunction) => void {
  const json = express.json({
    limit: JSON_BODY_LIMIT,
    type: JSON_TYPES,
    verify: (req, _res, buf) => {
      if (jsonDepthExceeds(buf, JSON_MAX_DEPTH)) throw Object.assign(new Error(TOO_DEEP), { type: TOO_DEEP });
      if (buf.includes('\\u') && SURROGATE_ESCAPE.test(buf.toString('latin1')))
        (req as Request & Flagged)[SURROGATES] = true;
    },
  });
  return (req, res, next) => {
    if (!WITH_BODY.has(req.method)) return next();
    const problem = contentEncodingProblem(req) ?? (req.is(JSON_TYPES) ? charsetProblem(req) : null);
    if (problem) {
      record(req, problem);
      return next();
    }
    json(req, res, (err?: unknown) => {
      if (err) record(req, describeParseError(err, req.headers['content-encoding']));
      else if ((req as Request & Flagged)[SURROGATES]) req.body = wellFormed(req.body);
      next();
    });
  };
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/**
 * A path segment with broken percent-encoding reaches the routes as its literal text (its `%` escaped), so a
 * bad id is the 422 or 404 the route declares instead of the router's 400.
 */
export function repairPathEncoding(req: Request, _res: Response, next: NextFunction): void {
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  if (path.includes('%') && !decodes(path)) {
    const fixed = path
      .split('/')
      .map((s) => (decodes(s) ? s : s.replace(/%/g, '%25')))
      .join('/');
    req.url = fixed + (q < 0 ? '' : req.url.slice(q));
  }
  next();
}
