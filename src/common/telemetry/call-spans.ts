import { callContext, clean, recordSpan, withSpan } from './telemetry';
import { tracingState } from './tracing-state';

/**
 * A call's trace: its id is the call's (call-trace.ts), its root `call` span is written when the call ends, and its
 * voice turns and the work around them are spans under it. Nothing with tracing off.
 */

/**
 * Runs `fn` in a call's trace, under its `call` span (no span of its own): work of the call done outside a turn,
 * such as transcribing the caller's words before a turn starts. As it is with tracing off.
 */
export function inCallTrace<T>(callId: string, fn: () => T): T {
  const s = tracingState();
  return s ? s.run(callContext(s, callId), fn) : fn();
}

/** What the root `call` span says of a call that ended. */
export interface EndedCall {
  id: string;
  workspaceId: string;
  agentId: string | null;
  direction: string;
  channel: string;
  provider: string;
  status: string;
  endReason: string | null;
  isSimulation: boolean;
  createdAt: Date;
  answeredAt: Date | null;
  endedAt: Date | null;
}

/**
 * Writes the call's root span, `call`, from its placement (or arrival) to its end, once it has ended. Its trace id
 * is the call's uuid without dashes and its span id is derived from it, so every span of the call made anywhere
 * before (turns, speech, the model, webhooks) already names it as parent.
 */
export function endCallSpan(call: EndedCall): void {
  const s = tracingState();
  if (!s) return;
  const span = s.calls.startCallSpan(call.id, () =>
    s.tracer.startSpan(
      'call',
      {
        root: true,
        kind: s.api.SpanKind.INTERNAL,
        startTime: call.createdAt,
        attributes: clean({
          'workspace.id': call.workspaceId,
          'call.id': call.id,
          'conversation.id': call.id,
          'agent.id': call.agentId,
          'call.direction': call.direction,
          'call.channel': call.channel,
          'call.provider': call.provider,
          'call.status': call.status,
          'call.end_reason': call.endReason,
          'call.simulation': call.isSimulation,
          'call.ring_ms': call.answeredAt ? call.answeredAt.getTime() - call.createdAt.getTime() : null,
        }),
      },
      s.api.ROOT_CONTEXT,
    ),
  );
  span.end(call.endedAt ?? new Date());
}

/**
 * A voice turn a call's media stream just detected, `silenceMs` after the customer stopped speaking: answers the
 * function to run for it, which runs in the call's `turn` span, started when the speech ended, with that silence
 * recorded first as its `endpointing` step (speech to text, the model and speech run inside it; the turn pipeline
 * takes this span as its own). The function as it is with tracing off.
 */
export function voiceTurn<T>(
  call: { workspaceId: string; callId: string },
  silenceMs: number,
  run: () => Promise<T>,
): () => Promise<T> {
  if (!tracingState()) return run;
  const detected = Date.now();
  const spokeUntil = detected - silenceMs;
  const attributes = {
    'workspace.id': call.workspaceId,
    'call.id': call.callId,
    'conversation.id': call.callId,
    'turn.source': 'voice',
  };
  return () =>
    withSpan(
      'turn',
      attributes,
      () => {
        recordSpan('endpointing', { 'endpointing.silence_ms': silenceMs }, spokeUntil, detected);
        return run();
      },
      { call: call.callId, startTime: spokeUntil, reuse: true },
    );
}
