import { decodeMulaw } from './audio';
import type { StreamLink } from './stream-link';
import type { MediaTransport } from './transport';

/**
 * A media session's far end on a Twilio Media Stream: frames go out as base64 µ-law `media` messages, marks and
 * `clear` as their messages, under the current stream's `streamSid` (set by the link). Page events are not sent.
 */
export class TwilioTransport implements MediaTransport {
  readonly kind = 'twilio';
  readonly sampleRate = 8000;

  constructor(private readonly link: StreamLink) {}

  sendAudio(frame: Buffer): void {
    this.link.send({ event: 'media', streamSid: '', media: { payload: frame.toString('base64') } });
  }

  sendMark(name: string): void {
    this.link.send({ event: 'mark', streamSid: '', mark: { name } });
  }

  clear(): void {
    this.link.send({ event: 'clear', streamSid: '' });
  }
}

/** A `media` message's payload (base64 8 kHz µ-law) as PCM for the session. */
export function twilioAudio(payload: string): Int16Array {
  return decodeMulaw(Buffer.from(payload, 'base64'));
}
