import { performance } from 'node:perf_hooks';
import { frame, MediaClient } from './media-client';

/** What is said: Media Stream payloads of 20 ms (a corpus entry's, or generated ones). */
export interface Recording {
  payloads: string[];
}

/** `ms` of the test tone (speech to an energy detector, not to a voice model). */
export const tone = (ms: number): Recording => ({
  payloads: Array.from({ length: ms / 20 }, (_, i) => frame('tone', i)),
});

/**
 * A caller on a Media Stream in real time, as Twilio sends it: one 20 ms frame every 20 ms on an absolute schedule,
 * the corpus recording being said or else line silence. The agent's audio received is kept as talk spurts (frames
 * less than 200 ms apart).
 */
export class RealtimeLine {
  /** The agent's talk spurts received (performance.now()). */
  readonly spurts: { start: number; end: number }[] = [];
  private queue: { entry: Recording; next: number; done: (at: { start: number; end: number }) => void }[] =
    [];
  private sent = 0;
  private seen = 0;
  private running = true;
  private readonly ticking: Promise<void>;

  constructor(readonly client: MediaClient) {
    this.ticking = this.run();
  }

  /** Says the recording after what is queued; resolves with when its first and last frames were sent. */
  say(entry: Recording): Promise<{ start: number; end: number }> {
    return new Promise((done) => this.queue.push({ entry, next: 0, done }));
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.ticking;
  }

  private async run(): Promise<void> {
    const start = performance.now();
    let startedAt = 0;
    for (let i = 1; this.running; i++) {
      this.received();
      const now = performance.now();
      const current = this.queue[0];
      this.sent += 1;
      const payload = current ? current.entry.payloads[current.next] : frame('silence', this.sent);
      this.client.send({
        event: 'media',
        streamSid: this.client.streamSid,
        media: { track: 'inbound', chunk: String(this.sent), timestamp: String(this.sent * 20), payload },
      });
      if (current) {
        if (current.next === 0) startedAt = now;
        current.next += 1;
        if (current.next === current.entry.payloads.length) {
          this.queue.shift();
          current.done({ start: startedAt, end: now });
        }
      }
      await new Promise((r) => setTimeout(r, Math.max(0, start + i * 20 - performance.now())));
    }
  }

  private received(): void {
    const { received, receivedAt } = this.client;
    for (; this.seen < received.length; this.seen++) {
      if (received[this.seen].event !== 'media') continue;
      const at = receivedAt[this.seen];
      const last = this.spurts[this.spurts.length - 1];
      if (last && at - last.end < 200) last.end = at;
      else this.spurts.push({ start: at, end: at });
    }
  }
}
