import { Logger } from '@nestjs/common';
import {
  SpeechError,
  SpeechToText,
  StreamingSpeechToText,
  TextToSpeech,
} from '@/providers/speech/speech.port';
import { UsageReport, UsageScope, withinUsageScope } from '@/providers/usage-report';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { SessionDeps, SttStreamOpener } from './media-session.types';

const logger = new Logger('CallSpeech');

/**
 * A call's usage, less the speech-to-text audio counted twice: audio a stream was sent (and counted) that a batch
 * transcription sends again after the stream failed.
 */
class CallUsage implements UsageScope {
  private credit = 0;

  constructor(private readonly scope: UsageScope) {}

  report(usage: UsageReport): void {
    const stt = usage.sttMs ?? 0;
    if (this.credit > 0 && stt > 0) {
      const taken = Math.min(this.credit, stt);
      this.credit -= taken;
      usage = { ...usage, sttMs: stt - taken };
    }
    this.scope.report(usage);
  }

  /** The next `ms` of speech-to-text audio reported were counted already. */
  counted(ms: number): void {
    if (ms > 0) this.credit += ms;
  }
}

export interface CallSpeechOptions {
  workspaceId: WorkspaceId;
  callId: string;
  /** The call's speech-to-text mode (`sttModeOf` its agent's settings.voice): realtime opens a stream. */
  mode: 'batch' | 'realtime';
  /** The workspace's live-call limit: never more streams open in it (one per live call admitted). */
  callLimit: number;
}

/**
 * The speech services of one call's media session, each counted in the call's usage (`scope`): batch speech to
 * text, text to speech and, in realtime mode with a realtime endpoint configured, the opener of the call's
 * speech-to-text stream. Audio a stream counted is not counted again when it is transcribed in batch after a
 * failure of the stream.
 */
export function callSpeech(
  scope: UsageScope,
  ports: { stt: SpeechToText; tts: TextToSpeech; stream: StreamingSpeechToText },
  options: CallSpeechOptions,
): Pick<SessionDeps, 'stt' | 'tts' | 'sttStream'> {
  const usage = new CallUsage(scope);
  const realtime = options.mode === 'realtime' && ports.stream.configured;
  return {
    stt: withinUsageScope(ports.stt, usage),
    tts: withinUsageScope(ports.tts, usage),
    // The stream counts its audio in the scope it was opened in.
    sttStream: realtime ? streamOpener(withinUsageScope(ports.stream, usage), usage, options) : undefined,
  };
}

function streamOpener(
  port: StreamingSpeechToText,
  usage: CallUsage,
  { workspaceId, callId, callLimit }: CallSpeechOptions,
): SttStreamOpener {
  return {
    async open({ sampleRate, language, signal }) {
      if (port.openSessions(workspaceId) >= callLimit) {
        logger.warn(
          { callId, workspaceId, limit: callLimit },
          'realtime speech to text not opened: the workspace has a stream open for each call its limit allows; the call is transcribed in batch',
        );
        return null;
      }
      try {
        return await port.openStream({ sampleRate, language, signal, callId, workspaceId });
      } catch (err) {
        // A stream that could not open was logged by the adapter (once); the call is transcribed in batch.
        const known = err instanceof SpeechError && (err.kind === 'fallback' || err.kind === 'aborted');
        if (!known)
          logger.warn({ callId, err: (err as Error).message }, 'realtime speech to text could not open');
        return null;
      }
    },
    counted: (ms) => usage.counted(ms),
  };
}
