import { ChatMessage, ChatOptions, ChatResult, llmAborted, LlmError } from './language-model.port';

export interface StreamOptions {
  timeoutMs: number;
  /** The caller's abort (`ChatOptions.signal`), combined with the deadline. */
  signal?: AbortSignal;
  /** Each piece of content as it arrives. */
  onDelta: (text: string) => void;
}

/**
 * A streamed chat completion (Server-Sent Events of `chat.completion.chunk`) from the operator's endpoint.
 * `onDelta` receives each piece of content as it arrives; an abort closes the connection at once, before or during
 * the stream, and throws LlmError `aborted`.
 */
export async function streamChat(
  url: string,
  headers: Record<string, string>,
  body: Record<string, unknown>,
  { timeoutMs, signal, onDelta }: StreamOptions,
): Promise<ChatResult> {
  const deadline = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream' },
      body: JSON.stringify({ ...body, stream: true }),
      signal: signal ? AbortSignal.any([deadline, signal]) : deadline,
    });
  } catch (err) {
    if (signal?.aborted) throw llmAborted();
    if ((err as Error).name === 'TimeoutError')
      throw new LlmError('timeout', `Language model did not answer within ${timeoutMs} ms`);
    throw new LlmError('network', 'Language model unreachable (network)');
  }
  if (!res.ok || !res.body)
    throw new LlmError('http', `Language model answered HTTP ${res.status}`, res.status);
  let content = '';
  let model = String(body.model);
  let pending = '';
  let usage: ChatResult['usage'];
  const decoder = new TextDecoder();
  const handle = (line: string): void => {
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (!data || data === '[DONE]') return;
    let chunk: { model?: string; choices?: { delta?: { content?: unknown } }[]; usage?: ChatResult['usage'] };
    try {
      chunk = JSON.parse(data) as typeof chunk;
    } catch {
      throw new LlmError('invalid_response', 'Language model stream chunk is not JSON');
    }
    if (chunk.model) model = chunk.model;
    // Asked for with `stream_options.include_usage`: a last chunk with no choices carries the counts.
    if (chunk.usage && typeof chunk.usage === 'object') usage = chunk.usage;
    const piece = chunk.choices?.[0]?.delta?.content;
    if (typeof piece === 'string' && piece) {
      content += piece;
      onDelta(piece);
    }
  };
  try {
    for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(part, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) handle(line.trim());
    }
  } catch (err) {
    if (err instanceof LlmError) throw err;
    if (signal?.aborted) throw llmAborted();
    throw new LlmError('network', 'Language model stream broke off');
  }
  handle(pending.trim());
  return usage ? { content, model, usage } : { content, model };
}

export type { ChatMessage, ChatOptions };
