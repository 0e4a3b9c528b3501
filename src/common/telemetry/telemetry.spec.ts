import * as api from '@opentelemetry/api';
import { ParentBasedSampler, SamplingDecision } from '@opentelemetry/sdk-trace';
import { suppressTracing } from '@opentelemetry/core';
import { startTestTracing, type TestTracing } from '../../../test/support/tracing-harness';
import { callIds } from './call-trace';
import { inCallTrace } from './call-spans';
import { followInSpan, withSpan } from './telemetry';
import { Traced } from './traced';
import { carry, currentTraceId, currentTraceparent, resumeTrace, TRACE_FIELD } from './trace-context';

const SAMPLED = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const LEFT_OUT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';

describe('span helpers under a sampled and a left-out trace', () => {
  let tracing: TestTracing;
  let callSampled = true;
  /** The root sampler's draw for a new trace. */
  let rootSampled = true;
  /** The spans ended so far (the processor hands them over asynchronously). */
  const finished = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return tracing.exporter.getFinishedSpans();
  };

  beforeAll(() => {
    tracing = startTestTracing({
      sampler: new ParentBasedSampler({
        root: {
          shouldSample: () => ({
            decision: rootSampled ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD,
          }),
          toString: () => 'drawn',
        },
      }),
      calls: { sampled: () => callSampled },
    });
  });

  afterAll(() => tracing.stop());

  beforeEach(() => tracing.exporter.reset());

  const nested = (options: Parameters<typeof withSpan>[3]) =>
    withSpan(
      'turn',
      { 'call.id': 'x' },
      () => withSpan('llm', { 'agent.id': 'a' }, async () => 'done'),
      options,
    );

  it('makes the spans of a sampled trace, each a child of the one around it', async () => {
    await expect(nested({ parent: SAMPLED })).resolves.toBe('done');
    const spans = await finished();
    expect(spans.map((s) => s.name).sort()).toEqual(['llm', 'turn']);
    const turn = spans.find((s) => s.name === 'turn')!;
    const llm = spans.find((s) => s.name === 'llm')!;
    expect(llm.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
    expect(turn.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('makes none under a trace the sampler left out, nor under it, and the function still runs', async () => {
    await expect(nested({ parent: LEFT_OUT })).resolves.toBe('done');
    expect(await finished()).toEqual([]);
  });

  it("follows a call's sampling: none for a call left out, both for a sampled one", async () => {
    const call = '0190a9c2-7b1e-7c3d-9e4f-5a6b7c8d9e0f';
    callSampled = false;
    await nested({ call });
    expect(await finished()).toEqual([]);
    callSampled = true;
    await nested({ call });
    const spans = await finished();
    expect(spans.map((s) => s.name).sort()).toEqual(['llm', 'turn']);
    expect(spans.every((s) => s.spanContext().traceId === callIds(call).traceId)).toBe(true);
  });

  /** What an instrumentation (pg, ioredis, outgoing HTTP, with `requireParentSpan`) sees: is there a span? */
  const instrumentationSeesASpan = () => api.trace.getSpan(api.context.active()) !== undefined;

  it("runs a call's work outside its turns with no span for a call left out, under its call span for a kept one", () => {
    const call = '0190a9c2-7b1e-7c3d-9e4f-5a6b7c8d9e0f';
    const seen = () => ({ span: instrumentationSeesASpan(), traceId: currentTraceId() });
    callSampled = false;
    expect(inCallTrace(call, seen)).toEqual({ span: false, traceId: callIds(call).traceId });
    callSampled = true;
    expect(inCallTrace(call, seen)).toEqual({ span: true, traceId: callIds(call).traceId });
  });

  it('leaves no span in the context of a trace left out, so the instrumentations skip it, and carries it on', async () => {
    const seen = await resumeTrace(LEFT_OUT, () =>
      withSpan('turn', {}, () =>
        withSpan('llm', {}, async () => ({
          span: instrumentationSeesASpan(),
          traceId: currentTraceId(),
          carried: carry({ a: 1 }),
        })),
      ),
    );
    expect(seen).toEqual({
      span: false,
      traceId: '0af7651916cd43dd8448eb211c80319c',
      carried: { a: 1, [TRACE_FIELD]: LEFT_OUT },
    });
    // A job carrying it makes no span either.
    await withSpan('job q:x', {}, async () => expect(instrumentationSeesASpan()).toBe(false), {
      parent: LEFT_OUT,
    });
    expect(await finished()).toEqual([]);
  });

  it('makes no span in a request left out before it was traced, and what it carries on stays out', async () => {
    const carried = await api.context.with(suppressTracing(api.context.active()), () =>
      withSpan('llm', {}, async () => {
        expect(instrumentationSeesASpan()).toBe(false);
        return currentTraceparent();
      }),
    );
    expect(carried).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    await withSpan('job q:x', {}, async () => 'ran', { parent: carried });
    expect(await finished()).toEqual([]);
    // The call's own trace is the call's decision, whatever the request's.
    const call = '0190a9c2-7b1e-7c3d-9e4f-5a6b7c8d9e0f';
    callSampled = true;
    await api.context.with(suppressTracing(api.context.active()), () =>
      withSpan('turn', {}, async () => 'ran', { call }),
    );
    expect((await finished()).map((s) => s.name)).toEqual(['turn']);
  });

  it('keeps no span in the context of a new trace the draw leaves out, and carries it on left out', async () => {
    rootSampled = false;
    try {
      const seen = await withSpan(
        'job q:x',
        {},
        () =>
          withSpan('llm', {}, async () => ({
            span: instrumentationSeesASpan(),
            carried: currentTraceparent(),
          })),
        { root: true },
      );
      expect(seen.span).toBe(false);
      expect(seen.carried).toMatch(/^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-00$/);
      expect(await finished()).toEqual([]);
      rootSampled = true;
      await withSpan('job q:y', {}, async () => 'ran', { parent: seen.carried });
      expect(await finished()).toEqual([]);
      await withSpan('job q:z', {}, async () => expect(instrumentationSeesASpan()).toBe(true), {
        root: true,
      });
      expect((await finished()).map((s) => s.name)).toEqual(['job q:z']);
    } finally {
      rootSampled = true;
    }
  });

  it('runs a traced method in a trace left out as it is: no attributes worked out, no context made', async () => {
    const call = '0190a9c2-7b1e-7c3d-9e4f-5a6b7c8d9e0f';
    let worked = 0;
    class Work {
      @Traced<[string | null], Promise<unknown>>('turn', {
        attributes: () => ({ n: ++worked }),
        options: (callId) => ({ call: callId }),
      })
      async run(_callId: string | null) {
        return { context: api.context.active(), span: instrumentationSeesASpan() };
      }
    }
    const work = new Work();
    await resumeTrace(LEFT_OUT, async () => {
      const outer = api.context.active();
      expect(await work.run(null)).toEqual({ context: outer, span: false });
      expect(worked).toBe(0);
      expect(withSpan('llm', {}, () => api.context.active())).toBe(outer);
      expect(await finished()).toEqual([]);
      // A call's span leaves the trace it is started in: the call's sampling decides it.
      callSampled = true;
      expect((await work.run(call)).span).toBe(true);
      expect(worked).toBe(1);
    });
    expect((await finished()).map((s) => s.name)).toEqual(['turn']);
  });

  it('runs the steps of a stream made in a trace left out in that trace, whoever consumes it', async () => {
    const stream = await resumeTrace(LEFT_OUT, async () =>
      followInSpan('tts', {}, () =>
        (async function* () {
          yield instrumentationSeesASpan();
          yield currentTraceId();
        })(),
      ),
    );
    const seen: unknown[] = [];
    await withSpan(
      'consumer',
      {},
      async () => {
        for await (const step of stream) seen.push(step);
      },
      { parent: '00-1bf7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    );
    expect(seen).toEqual([false, '0af7651916cd43dd8448eb211c80319c']);
    expect((await finished()).map((s) => s.name)).toEqual(['consumer']);
  });

  it("ends a stream's span when the stream ends, is left early (closing its source) or fails", async () => {
    let closed = 0;
    const source = (fail: boolean) =>
      (async function* () {
        try {
          yield 1;
          yield 2;
          if (fail) throw new Error('speech server gone');
          yield 3;
        } finally {
          closed += 1;
        }
      })();
    const items: number[] = [];
    const follow = (name: string, fail = false) =>
      resumeTrace(SAMPLED, () =>
        followInSpan(
          name,
          {},
          () => source(fail),
          (_span, item, index) => items.push(item * 10 + index),
        ),
      );
    for await (const item of follow('whole')) items.push(item);
    for await (const item of follow('left')) if (item === 2) break;
    await expect(
      (async () => {
        for await (const item of follow('failed', true)) items.push(item);
      })(),
    ).rejects.toThrow('speech server gone');
    expect(closed).toBe(3);
    expect(items).toEqual([10, 1, 21, 2, 32, 3, 10, 21, 10, 1, 21, 2]);
    const spans = await finished();
    expect(spans.map((s) => [s.name, s.status.code]).sort()).toEqual([
      ['failed', api.SpanStatusCode.ERROR],
      ['left', api.SpanStatusCode.UNSET],
      ['whole', api.SpanStatusCode.UNSET],
    ]);
  });

  it('works attributes given as a function out only for a span that is made', async () => {
    let asked = 0;
    const attributes = () => {
      asked += 1;
      return { 'job.id': '7', 'job.wait_ms': null };
    };
    await withSpan('job', attributes, async () => 'ran', { parent: LEFT_OUT });
    expect(asked).toBe(0);
    await withSpan('job', attributes, async () => 'ran', { parent: SAMPLED });
    expect(asked).toBe(1);
    const [job] = await finished();
    expect(job.attributes).toEqual({ 'job.id': '7' });
  });

  it('still makes the spans of a sampled trace under a sampled one', async () => {
    await resumeTrace(SAMPLED, () =>
      withSpan('turn', {}, async () => expect(instrumentationSeesASpan()).toBe(true)),
    );
    expect((await finished()).map((s) => s.name)).toEqual(['turn']);
  });
});
