import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import type { AppConfig } from '@/config/app.config';
import { LlmError } from './language-model.port';
import { OpenAiCompatibleLanguageModel } from './openai-compatible.language-model';
import { runInUsageScope, UsageReport } from '../usage-report';

type Handler = (body: any, req: IncomingMessage, res: ServerResponse) => void;

/** A local server speaking chat completions; each test sets how it answers. */
async function startServer(): Promise<{
  server: Server;
  base: string;
  setHandler: (h: Handler) => void;
  seen: any[];
}> {
  let handler: Handler = () => undefined;
  const seen: any[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : null;
      seen.push({ url: req.url, headers: req.headers, body });
      handler(body, req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { server, base: `http://127.0.0.1:${port}/v1`, setHandler: (h) => (handler = h), seen };
}

const reply = (res: ServerResponse, content: string, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ model: 'test-model', choices: [{ message: { role: 'assistant', content } }] }));
};

/** Something that happens once: `fired` settles when `fire` is called. */
const event = () => {
  let fire!: () => void;
  const fired = new Promise<void>((r) => (fire = r));
  return { fire: () => fire(), fired };
};

const config = (baseUrl?: string, allowPrivateTargets = true) =>
  ({
    llm: { baseUrl, apiKey: 'sk-test', model: 'gpt-test' },
    network: { allowPrivateTargets },
  }) as unknown as AppConfig;

describe('OpenAiCompatibleLanguageModel', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    Logger.overrideLogger(false);
    srv = await startServer();
  });
  afterAll(() => new Promise((r) => srv.server.close(r)));
  beforeEach(() => (srv.seen.length = 0));

  it('posts model and messages to {base}/chat/completions with the key, json mode on request', async () => {
    srv.setHandler((_b, _q, res) => reply(res, '{"ok":true}'));
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base + '/'));
    const out = await llm.chat([{ role: 'user', content: 'hi' }], { json: true });
    expect(out).toEqual({ content: '{"ok":true}', model: 'test-model', usage: undefined });
    expect(srv.seen[0].url).toBe('/v1/chat/completions');
    expect(srv.seen[0].headers.authorization).toBe('Bearer sk-test');
    expect(srv.seen[0].body).toEqual({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
      response_format: { type: 'json_object' },
    });
  });

  it("uses an agent's custom base URL over LLM_BASE_URL", async () => {
    srv.setHandler((_b, _q, res) => reply(res, 'hello'));
    const llm = new OpenAiCompatibleLanguageModel(config('http://127.0.0.1:1/unused'));
    const out = await llm.chat([{ role: 'user', content: 'hi' }], { baseUrl: srv.base });
    expect(out.content).toBe('hello');
  });

  it("sends an agent's custom base URL through the address guard, the operator's LLM_BASE_URL not", async () => {
    srv.setHandler((_b, _q, res) => reply(res, 'hello'));
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base, false));
    // The tenant reads a category, never the socket error.
    await expect(llm.chat([{ role: 'user', content: 'hi' }], { baseUrl: srv.base })).rejects.toMatchObject({
      kind: 'network',
      message: 'Language model unreachable (refused: private address)',
    });
    expect(srv.seen).toHaveLength(0);
    expect((await llm.chat([{ role: 'user', content: 'hi' }])).content).toBe('hello');
  });

  it('never follows a redirect', async () => {
    srv.setHandler((_b, _q, res) => {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
      res.end();
    });
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base));
    await expect(llm.chat([{ role: 'user', content: 'hi' }], { baseUrl: srv.base })).rejects.toMatchObject({
      kind: 'http',
      message: 'Language model answered HTTP 302',
    });
  });

  it('reports not_configured when no base URL is set', async () => {
    const llm = new OpenAiCompatibleLanguageModel(config());
    expect(llm.isConfigured()).toBe(false);
    await expect(llm.chat([{ role: 'user', content: 'x' }])).rejects.toMatchObject({
      kind: 'not_configured',
      message: expect.stringContaining('LLM_BASE_URL'),
    });
  });

  it('reports HTTP errors with the status and the provider message', async () => {
    srv.setHandler((_b, _q, res) => {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'slow down' } }));
    });
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base));
    const err = (await llm.chat([{ role: 'user', content: 'x' }]).catch((e) => e)) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({
      kind: 'http',
      status: 429,
      message: 'Language model answered HTTP 429: slow down',
    });
  });

  it('reports an answer without content as invalid_response', async () => {
    srv.setHandler((_b, _q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices":[]}');
    });
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base));
    await expect(llm.chat([{ role: 'user', content: 'x' }])).rejects.toMatchObject({
      kind: 'invalid_response',
    });
  });

  it('times out a model that does not answer', async () => {
    srv.setHandler(() => undefined);
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base));
    await expect(llm.chat([{ role: 'user', content: 'x' }], { timeoutMs: 100 })).rejects.toMatchObject({
      kind: 'timeout',
    });
  });

  it('aborts a request on its signal: the connection closes and the call throws aborted', async () => {
    const [closed, reached] = [event(), event()];
    srv.setHandler((_b, _q, res) => {
      res.on('close', closed.fire);
      reached.fire();
    });
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base));
    const controller = new AbortController();
    const chat = llm.chat([{ role: 'user', content: 'x' }], { signal: controller.signal });
    await reached.fired;
    controller.abort();
    await expect(chat).rejects.toMatchObject({ kind: 'aborted' });
    await closed.fired;
    // Already aborted: nothing is sent.
    srv.seen.length = 0;
    await expect(
      llm.chat([{ role: 'user', content: 'x' }], { signal: controller.signal }),
    ).rejects.toMatchObject({ kind: 'aborted' });
    await expect(
      llm.chatStream([{ role: 'user', content: 'x' }], { signal: controller.signal }, () => undefined),
    ).rejects.toMatchObject({ kind: 'aborted' });
    expect(srv.seen).toHaveLength(0);
  });

  it('aborts a stream mid-way: no delta after the abort, the connection closes, aborted is thrown', async () => {
    const closed = event();
    srv.setHandler((_b, _q, res) => {
      res.on('close', closed.fire);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: 'Hello ' } }] })}\n\n`);
    });
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base));
    const controller = new AbortController();
    const deltas: string[] = [];
    const stream = llm.chatStream([{ role: 'user', content: 'x' }], { signal: controller.signal }, (d) => {
      deltas.push(d);
      controller.abort();
    });
    await expect(stream).rejects.toMatchObject({ kind: 'aborted' });
    await closed.fired;
    expect(deltas).toEqual(['Hello ']);
  });

  it('aborts a request whose answer is half sent', async () => {
    const [closed, half] = [event(), event()];
    srv.setHandler((_b, _q, res) => {
      res.on('close', closed.fire);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"model":"test-model",');
      half.fire();
    });
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base));
    const controller = new AbortController();
    const chat = llm.chat([{ role: 'user', content: 'x' }], { signal: controller.signal, timeoutMs: 5_000 });
    await half.fired;
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await expect(chat).rejects.toMatchObject({ kind: 'aborted' });
    await closed.fired;
  });

  it("reports the model's token counts to the usage scope, streamed ones from the usage chunk it asks for", async () => {
    srv.setHandler((body, _q, res) => {
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            model: 'test-model',
            choices: [{ message: { role: 'assistant', content: 'ok' } }],
            usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: 'Hi ' } }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: 'there' } }] })}\n\n`);
      if (body.stream_options?.include_usage)
        res.write(
          `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 40, completion_tokens: 2 } })}\n\n`,
        );
      res.end('data: [DONE]\n\n');
    });
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base));
    const reports: UsageReport[] = [];
    const streamed = await runInUsageScope({ report: (u) => reports.push(u) }, async () => {
      await llm.chat([{ role: 'user', content: 'x' }]);
      return llm.chatStream([{ role: 'user', content: 'x' }], {}, () => undefined);
    });
    expect(srv.seen[1].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(streamed).toMatchObject({
      content: 'Hi there',
      usage: { prompt_tokens: 40, completion_tokens: 2 },
    });
    expect(reports).toEqual([
      { promptTokens: 12, completionTokens: 3 },
      { promptTokens: 40, completionTokens: 2 },
    ]);
  });

  it('classifies with the model: one json_object call scoring every candidate', async () => {
    srv.setHandler((body, _q, res) => {
      const { candidates } = JSON.parse(body.messages[1].content);
      reply(
        res,
        JSON.stringify({
          scores: candidates.map((c: any) => ({ id: c.id, score: c.id === 'b' ? 0.9 : 0.1 })),
        }),
      );
    });
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base));
    const out = await llm.classify('refund please', [
      { id: 'a', description: 'sales', examples: ['buy'] },
      { id: 'b', description: 'refunds', examples: ['refund'] },
    ]);
    expect(out.method).toBe('llm');
    expect(out.scores).toEqual([
      { id: 'a', score: 0.1, matched: false },
      { id: 'b', score: 0.9, matched: true },
    ]);
    expect(srv.seen[0].body.response_format).toEqual({ type: 'json_object' });
  });

  it('falls back to the local classifier, saying why, when the model answers garbage', async () => {
    srv.setHandler((_b, _q, res) => reply(res, 'not json'));
    const llm = new OpenAiCompatibleLanguageModel(config(srv.base));
    const out = await llm.classify('talk to billing', [
      { id: 'a', description: '', examples: ['talk to billing'] },
    ]);
    expect(out.method).toBe('local');
    expect(out.fallbackReason).toMatch(/not a JSON object/);
    expect(out.scores[0]).toEqual({ id: 'a', score: 1, matched: true });
  });

  it('classifies locally when no model is configured', async () => {
    const llm = new OpenAiCompatibleLanguageModel(config());
    const out = await llm.classify('talk to billing', [
      { id: 'a', description: '', examples: ['talk to billing'] },
    ]);
    expect(out).toEqual({ method: 'local', scores: [{ id: 'a', score: 1, matched: true }] });
  });
});
