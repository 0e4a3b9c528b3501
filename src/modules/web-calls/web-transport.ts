import { WebSocket } from 'ws';
import type { MediaTransport } from '@/modules/voice/media/transport';
import type { WebCallRecorder } from './web-call-recorder';

/**
 * A media session's far end in a browser: the agent's 20 ms frames go out as binary 16 kHz 16-bit PCM (640 bytes),
 * marks, `clear` and the session's events as small JSON messages. The agent's words are told from the call's
 * live feed (every message, the spoken actions' too), so the session's own agent transcript is not repeated.
 */
export class WebTransport implements MediaTransport {
  readonly kind = 'web';
  readonly sampleRate = 16000;

  constructor(
    private readonly ws: WebSocket,
    private readonly recorder: WebCallRecorder | null,
  ) {}

  sendAudio(frame: Buffer): void {
    this.recorder?.add('agent', frame);
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(frame, { binary: true });
  }

  sendMark(name: string): void {
    this.send({ type: 'mark', name });
  }

  clear(): void {
    this.send({ type: 'clear' });
  }

  event(e: { type: string } & Record<string, unknown>): void {
    if (e.type === 'transcript' && e.role === 'agent') return;
    this.send(e);
  }

  send(message: { type: string } & Record<string, unknown>): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }
}
