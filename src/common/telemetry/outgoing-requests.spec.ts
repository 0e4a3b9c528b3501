import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
// The module object itself (a namespace import is a copy the instrumentation cannot patch).
import http from 'node:http';
import { startTestTracing, type TestTracing } from '../../../test/support/tracing-harness';
import { routeAround, routeOutgoingAroundInstrumentation } from './request-context';
import { untracedRequest } from './start';
import { withSpan } from './telemetry';
import { currentTraceId } from './trace-context';

describe('outgoing requests sent round the HTTP instrumentation', () => {
  let tracing: TestTracing;
  /** How many outgoing requests the instrumentation looked at (it asks its hook of each one). */
  let looked = 0;
  const instrumentation = new HttpInstrumentation({
    enabled: false,
    disableIncomingRequestInstrumentation: true,
    requireParentforOutgoingSpans: true,
    ignoreOutgoingRequestHook: () => {
      looked += 1;
      return untracedRequest(api);
    },
  });
  // Patched by hand, as the SDK's module hook patches `http` when it loads (the test runner loads it its way).
  const patching = instrumentation.getModuleDefinitions().find((d) => d.name === 'http')!;
  const native = { request: http.request, get: http.get };
  let server: http.Server;
  let base: string;
  /** The `traceparent` of each request the server received, by path. */
  const received = new Map<string, string | undefined>();

  beforeAll(async () => {
    tracing = startTestTracing();
    api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    instrumentation.setTracerProvider(tracing.provider);
    patching.patch!(http);
    routeOutgoingAroundInstrumentation(() => untracedRequest(api));
    server = http.createServer((req, res) => {
      received.set(req.url ?? '', req.headers.traceparent as string | undefined);
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    if ((http.request as { __wrapped?: boolean }).__wrapped) patching.unpatch!(http);
    tracing.stop();
  });

  beforeEach(() => {
    tracing.exporter.reset();
    looked = 0;
    received.clear();
  });

  /** Sends one request the way of `how` and waits for its answer. */
  const send = (how: 'request' | 'get', path: string) =>
    new Promise<string>((resolve, reject) => {
      const done = (res: http.IncomingMessage) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
      };
      if (how === 'get') http.get(`${base}${path}`, done).on('error', reject);
      else http.request(`${base}${path}`, { method: 'POST' }, done).on('error', reject).end('x');
    });

  it.each(['request', 'get'] as const)(
    'sends one made where no span is current (%s) straight to Node: not looked at, no header, no span',
    async (how) => {
      expect(await send(how, `/none-${how}`)).toBe('ok');
      expect(received.get(`/none-${how}`)).toBeUndefined();
      expect(looked).toBe(0);
      expect(tracing.exporter.getFinishedSpans()).toEqual([]);
    },
  );

  it('traces one made under a span: its client span, the trace carried in its header', async () => {
    const traceId = await withSpan('work', {}, async () => {
      await send('request', '/traced');
      return currentTraceId();
    });
    expect(looked).toBe(1);
    expect(received.get('/traced')).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const spans = tracing.exporter.getFinishedSpans();
    const client = spans.find((s) => s.kind === api.SpanKind.CLIENT);
    const work = spans.find((s) => s.name === 'work');
    expect(client?.parentSpanContext?.spanId).toBe(work?.spanContext().spanId);
    expect(received.get('/traced')).toContain(client!.spanContext().spanId);
  });

  it('sends one timed by a span of ours (the model, a webhook) round it: no client span under ours', async () => {
    await withSpan('llm', {}, () => send('get', '/own'));
    expect(looked).toBe(0);
    expect(tracing.exporter.getFinishedSpans().map((s) => s.name)).toEqual(['llm']);
  });

  it("the instrumentation's unwrap restores Node's own functions", () => {
    expect(http.request).not.toBe(native.request);
    patching.unpatch!(http);
    expect(http.request).toBe(native.request);
    expect(http.get).toBe(native.get);
  });
});

describe('routeAround (statements and commands made where no span is current)', () => {
  /** A method wrapped the way the instrumentations' shimmer wraps one: the wrapper keeps the original. */
  const wrapped = () => {
    const calls: string[] = [];
    const original = function (this: { id: string }, a: number, b: number) {
      calls.push(`original ${this.id}`);
      return a + b;
    };
    const instrumented = Object.assign(
      function (this: { id: string }, a: number, b: number) {
        calls.push('instrumented');
        return original.call(this, a, b);
      },
      { __original: original, __wrapped: true },
    );
    const target = { id: 'client', query: instrumented as (a: number, b: number) => number };
    return { calls, original, instrumented, target };
  };

  it('sends the calls it is told are untraced straight to the original, with their this and arguments', () => {
    const { calls, target } = wrapped();
    let untraced = true;
    expect(routeAround(target, 'query', () => untraced)).toBe(true);
    expect(target.query(2, 3)).toBe(5);
    expect(calls).toEqual(['original client']);
    untraced = false;
    expect(target.query(1, 1)).toBe(2);
    expect(calls).toEqual(['original client', 'instrumented', 'original client']);
  });

  it('replaces its earlier route, and the unwrap restores the original', () => {
    const { calls, original, target } = wrapped();
    routeAround(target, 'query', () => false);
    routeAround(target, 'query', () => true);
    target.query(0, 0);
    expect(calls).toEqual(['original client']);
    (target.query as unknown as { __unwrap(): void }).__unwrap();
    expect(target.query).toBe(original);
  });

  it('leaves a method no instrumentation wrapped alone', () => {
    const target = { query: (a: number) => a };
    const own = target.query;
    expect(routeAround(target, 'query', () => true)).toBe(false);
    expect(target.query).toBe(own);
  });
});
