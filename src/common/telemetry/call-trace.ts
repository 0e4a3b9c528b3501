import { createHash } from 'node:crypto';
import type { Span } from '@opentelemetry/api';
import { IdGenerator, Sampler, SamplingDecision } from '@opentelemetry/sdk-trace';
import { keepForCall, type CallTraces } from './tracing-state';

const HEX_UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * A call is one trace: its trace id is the call's uuid without dashes (an operator pastes the call's uuid into the
 * trace search) and its root span, `call`, has a span id derived from it. Spans of the call made in any process
 * before the call ends (turns, speech, the model, the webhooks they cause) name that root as their parent; the
 * process that ends the call writes the root itself, with the call's placement as its start.
 */
export function callIds(callId: string): { traceId: string; spanId: string } {
  return kept(idsOfCalls, callId, () => idsOf(callId));
}

const idsOfCalls = new Map<string, { traceId: string; spanId: string }>();

/**
 * What `map` keeps for `key`, made and kept on first use: every span of a call asks, so the live calls' answers are
 * kept (`keepForCall`).
 */
function kept<V>(map: Map<string, V>, key: string, make: () => V): V {
  return map.has(key) ? (map.get(key) as V) : keepForCall(map, key, make());
}

function idsOf(callId: string): { traceId: string; spanId: string } {
  const traceId = HEX_UUID.test(callId)
    ? callId.replace(/-/g, '').toLowerCase()
    : createHash('sha256').update(`trace:${callId}`).digest('hex').slice(0, 32);
  let spanId = createHash('sha256').update(`call:${callId}`).digest('hex').slice(0, 16);
  if (/^0+$/.test(spanId)) spanId = '0000000000000001';
  return { traceId, spanId };
}

/**
 * The SDK's id generator, the SDK's random one except while a `call` span is being started: then it answers the call's ids. The
 * SDK asks for a span's ids synchronously inside `startSpan`, so nothing else can take them meanwhile.
 */
export class CallIdGenerator implements IdGenerator {
  private next: { traceId: string; spanId: string } | null = null;

  constructor(private readonly random: IdGenerator) {}

  generateTraceId(): string {
    return this.next?.traceId ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.next?.spanId ?? this.random.generateSpanId();
  }

  /** Runs `start` (a startSpan of a root span) with the call's ids. */
  withIds<T>(ids: { traceId: string; spanId: string }, start: () => T): T {
    this.next = ids;
    try {
      return start();
    } finally {
      this.next = null;
    }
  }
}

/**
 * The call traces of a started SDK: `sampler` is the SDK's, asked as for a new trace. (This file is loaded only when
 * tracing starts.)
 */
export function callTraces(
  ids: CallIdGenerator,
  sampler: Sampler,
  api: typeof import('@opentelemetry/api'),
): CallTraces {
  // The sampler answers a trace id the same way each time (it draws on the id's bits).
  const decisions = new Map<string, boolean>();
  return {
    ids: callIds,
    sampled: (traceId) =>
      kept(
        decisions,
        traceId,
        () =>
          sampler.shouldSample(api.ROOT_CONTEXT, traceId, 'call', api.SpanKind.INTERNAL, {}, []).decision ===
          SamplingDecision.RECORD_AND_SAMPLED,
      ),
    startCallSpan: (callId: string, start: () => Span) => ids.withIds(callIds(callId), start),
  };
}
