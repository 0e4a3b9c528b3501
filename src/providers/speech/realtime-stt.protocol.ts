import type { RealtimeSttConfig } from '@/config/app.config';
import { REALTIME_RATE } from './pcm-resampler';

/**
 * The OpenAI Realtime API in transcription mode, as far as a speech-to-text stream uses it: the session update of
 * each protocol variant and the server events, read into one shape.
 */
export type ServerEvent =
  /** The session (`session.updated` or `transcription_session.updated`) took our configuration. */
  | { kind: 'ready' }
  | { kind: 'speech_started' }
  | { kind: 'speech_stopped'; itemId?: string; audioEndMs?: number }
  | { kind: 'committed'; itemId?: string }
  | { kind: 'delta'; itemId?: string; text: string }
  | { kind: 'completed'; itemId?: string; text: string }
  | { kind: 'failed'; itemId?: string; message: string }
  | { kind: 'error'; eventId?: string; code?: string; message: string }
  | { kind: 'other' };

export interface SessionOptions {
  model: string;
  language?: string | null;
  serverVad: boolean;
}

/** Headers of the WebSocket upgrade. */
export function upgradeHeaders(
  protocol: RealtimeSttConfig['protocol'],
  apiKey?: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  if (protocol === 'openai-beta') headers['openai-beta'] = 'realtime=v1';
  return headers;
}

/** 24 kHz PCM16, our commits only (or the service's own pauses with `serverVad`), no noise reduction. */
export function sessionUpdate(protocol: RealtimeSttConfig['protocol'], o: SessionOptions): object {
  const transcription = { model: o.model, ...(o.language ? { language: o.language } : {}) };
  const turnDetection = o.serverVad ? { type: 'server_vad' } : null;
  if (protocol === 'openai-beta')
    return {
      type: 'transcription_session.update',
      session: {
        input_audio_format: 'pcm16',
        input_audio_transcription: transcription,
        turn_detection: turnDetection,
      },
    };
  return {
    type: 'session.update',
    session: {
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: REALTIME_RATE },
          transcription,
          turn_detection: turnDetection,
        },
      },
    },
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** One server message; anything unknown (or not JSON) is `other`. */
export function readServerEvent(raw: string): ServerEvent {
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return { kind: 'other' };
  }
  if (!e || typeof e !== 'object') return { kind: 'other' };
  const itemId = str(e.item_id);
  switch (e.type) {
    case 'session.updated':
    case 'transcription_session.updated':
      return { kind: 'ready' };
    case 'input_audio_buffer.speech_started':
      return { kind: 'speech_started' };
    case 'input_audio_buffer.speech_stopped':
      return {
        kind: 'speech_stopped',
        itemId,
        audioEndMs: typeof e.audio_end_ms === 'number' ? e.audio_end_ms : undefined,
      };
    case 'input_audio_buffer.committed':
      return { kind: 'committed', itemId };
    case 'conversation.item.input_audio_transcription.delta':
      return { kind: 'delta', itemId, text: str(e.delta) ?? '' };
    case 'conversation.item.input_audio_transcription.completed':
      return { kind: 'completed', itemId, text: str(e.transcript) ?? '' };
    case 'conversation.item.input_audio_transcription.failed':
      return { kind: 'failed', itemId, message: errorMessage(e.error) };
    case 'error': {
      const err = (e.error && typeof e.error === 'object' ? e.error : {}) as Record<string, unknown>;
      return {
        kind: 'error',
        eventId: str(err.event_id),
        code: str(err.code) ?? str(e.code),
        message: errorMessage(e.error),
      };
    }
    default:
      return { kind: 'other' };
  }
}

/** An error's message: OpenAI's `{message}` object, or the plain string some servers send. */
function errorMessage(error: unknown): string {
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : 'no message';
}
