/** A tool result given to the model and stored: at most this many bytes of UTF-8 JSON. */
export const RESULT_MAX_BYTES = 8192;

/**
 * The result as JSON of at most 8,192 bytes. A longer one becomes `{truncated: true, content: "<its JSON, cut on a
 * character boundary>"}` of at most that size.
 */
export function capResult(result: unknown): unknown {
  const json = JSON.stringify(result ?? null);
  if (Buffer.byteLength(json) <= RESULT_MAX_BYTES) return result ?? null;
  let chars = json.length;
  for (;;) {
    // Never split a surrogate pair.
    let end = Math.min(chars, json.length);
    const code = json.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    const capped = { truncated: true, content: json.slice(0, end) };
    const excess = Buffer.byteLength(JSON.stringify(capped)) - RESULT_MAX_BYTES;
    if (excess <= 0) return capped;
    chars = end - Math.max(1, Math.ceil(excess / 4));
  }
}
