import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

export type LlmKind = 'classify' | 'evaluate' | 'memorize' | 'reply';

export interface LlmCall {
  kind: LlmKind;
  model: string;
  json: boolean;
  system: string;
  messages: LlmMessage[];
  authorization?: string;
  /** The functions offered (`tools`), when any. */
  tools?: { type: string; function: { name: string; description: string; parameters: any } }[];
  toolChoice?: unknown;
  /** Whether the request asked for Server-Sent Events. */
  stream: boolean;
  /**
   * The `usage` answered: prompt tokens are the words of every message sent, completion tokens the words answered
   * (streamed: only when `stream_options.include_usage` asked, in a last chunk; a stream cut short answers none).
   */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** Stream chunks written so far. */
  chunksSent: number;
  /** The client closed the connection before the whole answer was sent (an aborted request). */
  closedEarly: boolean;
}

export interface LlmMessage {
  role: string;
  content: string;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface LlmAnswer {
  status?: number;
  /** The assistant message content (wrapped in a chat-completions body). */
  content?: string;
  /** A raw body instead of a chat-completions one. */
  raw?: string;
  delayMs?: number;
  /** A streamed answer waits this long before each chunk after the first. */
  chunkDelayMs?: number;
  /** Function calls instead of (or with) content; `arguments` objects are sent as JSON text. */
  toolCalls?: { id?: string; name: string; arguments: unknown }[];
}

/** This server's token count: whitespace-separated words. */
export const tokensOf = (text: string | null | undefined): number =>
  (text ?? '').split(/\s+/).filter(Boolean).length;

function usageOf(messages: LlmMessage[], answered: string): NonNullable<LlmCall['usage']> {
  const prompt_tokens = messages.reduce((n, m) => n + tokensOf(m.content), 0);
  const completion_tokens = tokensOf(answered);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function kindOf(system: string): LlmKind {
  if (system.startsWith('You classify')) return 'classify';
  if (system.startsWith('You evaluate')) return 'evaluate';
  if (system.startsWith('From the conversation, extract')) return 'memorize';
  return 'reply';
}

/** The default answers: no intent matches, evaluations succeed, replies greet. */
export function defaultAnswer(call: LlmCall): LlmAnswer {
  switch (call.kind) {
    case 'classify':
      return { content: JSON.stringify({ scores: [] }) };
    case 'memorize':
      return { content: '{}' };
    case 'evaluate': {
      if (call.system.includes('"value": true or false'))
        return { content: JSON.stringify({ value: true, reason: 'goal reached' }) };
      if (call.system.includes('number from 0 to 10'))
        return { content: JSON.stringify({ value: 8, score: 8, reason: 'good' }) };
      if (call.system.includes('one of the labels')) {
        const labels = /Labels: (.*)/.exec(call.system)?.[1].split(', ') ?? ['none'];
        return { content: JSON.stringify({ value: labels[0], label: labels[0], reason: 'first label' }) };
      }
      return {
        content: JSON.stringify({
          value: 'The customer asked a question and got an answer.',
          reason: 'summary',
        }),
      };
    }
    default:
      return { content: 'Hello from the model.' };
  }
}

/** A real local HTTP server speaking OpenAI-compatible chat completions, with scriptable answers and latency. */
export class LlmServer {
  readonly calls: LlmCall[] = [];
  respond: (call: LlmCall) => LlmAnswer = defaultAnswer;
  latencyMs = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<LlmServer> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const self = new LlmServer(server, `http://127.0.0.1:${port}/v1`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void self.handle(req, res));
    return self;
  }

  callsOf(kind: LlmKind): LlmCall[] {
    return this.calls.filter((c) => c.kind === kind);
  }

  reset(): void {
    this.calls.length = 0;
    this.respond = defaultAnswer;
    this.latencyMs = 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString()) as {
      model: string;
      messages: LlmMessage[];
      response_format?: { type: string };
      tools?: LlmCall['tools'];
      tool_choice?: unknown;
      stream?: boolean;
      stream_options?: { include_usage?: boolean };
    };
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    const call: LlmCall = {
      kind: kindOf(system),
      model: body.model,
      json: body.response_format?.type === 'json_object',
      system,
      messages: body.messages,
      authorization: req.headers.authorization,
      tools: body.tools,
      toolChoice: body.tool_choice,
      stream: !!body.stream,
      chunksSent: 0,
      closedEarly: false,
    };
    this.calls.push(call);
    res.on('close', () => (call.closedEarly = !res.writableFinished));
    const answer = this.respond(call);
    const delay = answer.delayMs ?? this.latencyMs;
    if (delay) await new Promise((r) => setTimeout(r, delay));
    if (call.closedEarly) return;
    if (body.stream && answer.raw === undefined && (answer.status ?? 200) === 200) {
      // Server-Sent Events of chat.completion.chunk, a few words each, then [DONE].
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const piece of (answer.content ?? '').match(/\S+\s*/g) ?? []) {
        if (call.chunksSent && answer.chunkDelayMs)
          await new Promise((r) => setTimeout(r, answer.chunkDelayMs));
        if (call.closedEarly) return;
        res.write(
          `data: ${JSON.stringify({ model: body.model, choices: [{ index: 0, delta: { content: piece } }] })}\n\n`,
        );
        call.chunksSent += 1;
      }
      if (body.stream_options?.include_usage) {
        call.usage = usageOf(body.messages, answer.content ?? '');
        res.write(`data: ${JSON.stringify({ model: body.model, choices: [], usage: call.usage })}\n\n`);
      }
      res.end('data: [DONE]\n\n');
      return;
    }
    const answered = `${answer.content ?? ''} ${(answer.toolCalls ?? []).map((c) => JSON.stringify(c.arguments)).join(' ')}`;
    if (answer.raw === undefined && (answer.status ?? 200) === 200)
      call.usage = usageOf(body.messages, answered);
    const payload =
      answer.raw ??
      JSON.stringify({
        id: `chatcmpl-${this.calls.length}`,
        object: 'chat.completion',
        model: body.model,
        choices: [
          {
            index: 0,
            message: answer.toolCalls
              ? {
                  role: 'assistant',
                  content: answer.content ?? null,
                  tool_calls: answer.toolCalls.map((c, i) => ({
                    id: c.id ?? `call_${this.calls.length}_${i}`,
                    type: 'function',
                    function: {
                      name: c.name,
                      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
                    },
                  })),
                }
              : { role: 'assistant', content: answer.content ?? '' },
            finish_reason: answer.toolCalls ? 'tool_calls' : 'stop',
          },
        ],
        usage: call.usage,
      });
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(payload);
  }
}
