import * as api from '@opentelemetry/api';
import { suppressTracing, W3CTraceContextPropagator } from '@opentelemetry/core';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import * as http from 'node:http';
import { startTestTracing, type TestTracing } from '../../../test/support/tracing-harness';
import { resumeRequestContext, routeAroundInstrumentation } from './request-context';
import { callIds } from './call-trace';
import { requestRouting } from './start';
import { withSpan } from './telemetry';
import { currentTraceId } from './trace-context';

/** What a handler saw: whether a span was current (the instrumentations make theirs only then), and the trace id. */
interface Seen {
  span: boolean;
  traceId?: string;
  /** Whether the request and the response had their listener methods patched onto them (bound emitters). */
  bound: boolean;
}

describe('requests sent round the incoming-HTTP instrumentation', () => {
  let tracing: TestTracing;
  // Patched by hand below, as the SDK's module hook patches `http` when it loads (the test runner loads it its way).
  const instrumentation = new HttpInstrumentation({
    enabled: false,
    disableOutgoingRequestInstrumentation: true,
  });
  const patching = instrumentation.getModuleDefinitions().find((d) => d.name === 'http')!;
  let server: http.Server;
  let base: string;
  /** Which requests are sent round, as start.ts routes them: every new trace kept (1) or none (0). */
  let routing: ReturnType<typeof requestRouting>;
  /** The sampler's decision for every call's trace. */
  let callKept = true;
  const keeping = (share: number) =>
    (routing = requestRouting(share, true, suppressTracing(api.ROOT_CONTEXT)));

  beforeAll(async () => {
    tracing = startTestTracing({ calls: { sampled: () => callKept } });
    api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    instrumentation.setTracerProvider(tracing.provider);
    patching.patch!(http);
    routeAroundInstrumentation(api, (req) => routing(req));
    server = http.createServer((req, res) => {
      // The parsers' way: the handler carries on from the request's stream events, then through the middleware.
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        resumeRequestContext(req, res, () => {
          void withSpan('work', {}, async () => {
            const seen: Seen = {
              span: api.trace.getSpan(api.context.active()) !== undefined,
              traceId: currentTraceId(),
              bound: Object.hasOwn(req, 'on') || Object.hasOwn(res, 'on'),
            };
            res.setHeader('content-type', 'application/json');
            res.end(JSON.stringify(seen));
          });
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    if ((http.Server.prototype.emit as { __wrapped?: boolean }).__wrapped) patching.unpatch!(http);
    tracing.stop();
  });

  beforeEach(() => {
    tracing.exporter.reset();
    keeping(1);
    callKept = true;
  });

  const post = async (path: string, headers: Record<string, string> = {}): Promise<Seen> => {
    const res = await fetch(`${base}${path}`, { method: 'POST', body: 'hello', headers });
    return (await res.json()) as Seen;
  };
  /** The spans ended, once `count` have (the server span ends after the answer was read). */
  const finished = async (count: number) => {
    for (let i = 0; i < 200 && tracing.exporter.getFinishedSpans().length < count; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    return tracing.exporter.getFinishedSpans().map((s) => `${s.name} ${s.kind}`);
  };
  const CALLER = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };

  it('the instrumentation patched the server and traces a request not sent round it, without binding it', async () => {
    expect((http.Server.prototype.emit as { __wrapped?: boolean }).__wrapped).toBe(true);
    const seen = await post('/traced');
    // Under its span after the body was read: the context manager kept the request's context instead of binding it.
    expect(seen.span).toBe(true);
    expect(seen.bound).toBe(false);
    expect((await finished(2)).sort()).toEqual([
      `POST ${api.SpanKind.SERVER}`,
      `work ${api.SpanKind.INTERNAL}`,
    ]);
    const [server, work] = ['POST', 'work'].map((n) =>
      tracing.exporter.getFinishedSpans().find((s) => s.name === n)!,
    );
    expect(work.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
  });

  it("continues a caller's sampled trace through the instrumentation", async () => {
    keeping(0);
    const seen = await post('/continued', { traceparent: `00-${CALLER.traceId}-${CALLER.spanId}-01` });
    expect(seen).toEqual({ span: true, traceId: CALLER.traceId, bound: false });
    expect((await finished(2)).length).toBe(2);
    const server = tracing.exporter.getFinishedSpans().find((s) => s.kind === api.SpanKind.SERVER);
    expect(server?.parentSpanContext?.spanId).toBe(CALLER.spanId);
  });

  it("sends round one continuing a trace its caller's sampler left out, in that trace", async () => {
    const seen = await post('/continued', { traceparent: `00-${CALLER.traceId}-${CALLER.spanId}-00` });
    expect(seen).toEqual({ span: false, traceId: CALLER.traceId, bound: false });
    expect(await finished(0)).toEqual([]);
  });

  it('sends probes round, untraced', async () => {
    const seen = await post('/health?deep=1');
    expect(seen).toEqual({ span: false, bound: false });
    expect(await finished(0)).toEqual([]);
  });

  it('runs one the draw left out in a left-out trace of its own after the body was read: no span, no binding', async () => {
    keeping(0);
    const seen = await post('/left-out');
    expect(seen).toEqual({ span: false, traceId: expect.stringMatching(/^[0-9a-f]{32}$/), bound: false });
    expect(await finished(0)).toEqual([]);
    const again = await post('/left-out');
    expect(again.traceId).not.toBe(seen.traceId);
  });

  it("follows a call's decision for a request on it, not a draw of its own", async () => {
    const call = '0190A9C2-7B1E-7C3D-9E4F-5A6B7C8D9E0F';
    const callTrace = callIds(call.toLowerCase()).traceId;
    // Every new trace would be kept, but the call's is left out: sent round, in the call's trace.
    callKept = false;
    for (const path of [`/api/v1/calls/${call}/simulate`, `/api/v1/calls/action/${call}/say`]) {
      expect(await post(path)).toEqual({ span: false, traceId: callTrace, bound: false });
    }
    expect(await finished(0)).toEqual([]);
    // Every new trace would be left out, but the call's is kept: traced.
    keeping(0);
    callKept = true;
    expect((await post(`/api/v1/calls/${call}`)).span).toBe(true);
    expect((await finished(2)).length).toBe(2);
    // A path that names no call is drawn as before.
    tracing.exporter.reset();
    expect((await post('/api/v1/calls/simulate-inbound')).span).toBe(false);
    expect((await post(`/api/v1/callsx/${call}`)).span).toBe(false);
    expect(await finished(0)).toEqual([]);
  });

  it("the instrumentation's unwrap restores the server's own emit", () => {
    const wrapped = http.Server.prototype.emit as { __original?: unknown };
    const original = wrapped.__original;
    patching.unpatch!(http);
    expect(typeof original).toBe('function');
    expect(http.Server.prototype.emit).toBe(original);
  });
});
