import { mulaw } from 'alawmulaw';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';

/** 20 ms of 8 kHz µ-law: a tone (speech to the service's ears) or near silence. */
export function frame(kind: 'tone' | 'silence', index = 0): string {
  const samples = new Int16Array(160);
  for (let i = 0; i < 160; i++) {
    const t = index * 160 + i;
    samples[i] =
      kind === 'tone' ? Math.round(8000 * Math.sin((2 * Math.PI * 440 * t) / 8000)) : ((t * 7919) % 21) - 10;
  }
  return Buffer.from(mulaw.encode(samples)).toString('base64');
}

export interface Received {
  event: string;
  streamSid?: string;
  media?: { payload: string };
  mark?: { name: string };
}

/**
 * A Twilio Media Streams client: connects to the service's socket, sends `connected` and `start` with the token,
 * plays generated audio (tones for speech, silence between utterances), echoes marks like Twilio once their audio
 * has "played", and records everything it receives.
 */
export class MediaClient {
  readonly received: Received[] = [];
  /** When each message of `received` arrived (performance.now()). */
  readonly receivedAt: number[] = [];
  readonly streamSid = `MZ${Math.random().toString(16).slice(2).padEnd(32, '0')}`;
  private sent = 0;
  /** Echo each mark back (as Twilio does once the audio before it has played). */
  echoMarks = true;
  closed = false;
  closeCode: number | null = null;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw: WebSocket.RawData) => {
      const msg = JSON.parse((raw as Buffer).toString()) as Received;
      this.received.push(msg);
      this.receivedAt.push(performance.now());
      if (msg.event === 'mark' && this.echoMarks)
        this.send({ event: 'mark', streamSid: this.streamSid, mark: msg.mark });
    });
    ws.on('close', (code: number) => {
      this.closed = true;
      this.closeCode = code;
    });
  }

  static async connect(appUrl: string, callId: string, token: string, callSid = 'CA' + '0'.repeat(32)) {
    const ws = new WebSocket(`${appUrl.replace(/^https/, 'wss')}/hooks/v1/twilio/media/${callId}`, {
      rejectUnauthorized: false,
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const client = new MediaClient(ws);
    client.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    client.send({
      event: 'start',
      sequenceNumber: '1',
      streamSid: client.streamSid,
      start: {
        streamSid: client.streamSid,
        callSid,
        accountSid: 'AC' + '0'.repeat(32),
        tracks: ['inbound'],
        customParameters: { token },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    return client;
  }

  /** Connects as Twilio does for the `<Connect><Stream>` TwiML it was given (its `token` parameter). */
  static fromTwiml(appUrl: string, twiml: string, callId: string, callSid: string) {
    const token = /name="token" value="([^"]+)"/.exec(twiml)![1];
    return MediaClient.connect(appUrl, callId, token, callSid);
  }

  send(message: Record<string, unknown>): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** Plays `ms` of tone or silence as 20 ms frames (faster than real time: the service counts frames). */
  play(kind: 'tone' | 'silence', ms: number): void {
    for (let i = 0; i < ms / 20; i++) {
      this.sent += 1;
      this.send({
        event: 'media',
        streamSid: this.streamSid,
        media: {
          track: 'inbound',
          chunk: String(this.sent),
          timestamp: String(this.sent * 20),
          payload: frame(kind, this.sent),
        },
      });
    }
  }

  /** An utterance: tone, then the silence that ends the turn. */
  utter(toneMs = 400, silenceMs = 1000): void {
    this.play('tone', toneMs);
    this.play('silence', silenceMs);
  }

  dtmf(digit: string): void {
    this.send({ event: 'dtmf', streamSid: this.streamSid, dtmf: { track: 'inbound_track', digit } });
  }

  events(kind: string): Received[] {
    return this.received.filter((m) => m.event === kind);
  }

  stop(): void {
    this.send({ event: 'stop', streamSid: this.streamSid, stop: {} });
  }

  close(): void {
    this.ws.close();
  }
}
