import { WebSocket } from 'ws';

/** Messages held at most while the stream is away (some 60 s of 20 ms audio frames); later audio is dropped. */
const HELD_MAX = 3_000;

/**
 * Where a call's media session sends: the socket of its current Twilio stream, under that stream's `streamSid`.
 * When keys are pressed the call's TwiML is replaced, so Twilio ends the stream and opens a new one once the keys
 * are played: meanwhile (`hold`) what the session sends is kept and goes out on the new stream (`attach`).
 */
export class StreamLink {
  private held: Record<string, unknown>[] = [];
  private holding = false;

  constructor(
    private ws: WebSocket | null,
    private streamSid: string,
  ) {}

  /** Sends on the current stream, or keeps the message while the stream is away. */
  send(message: Record<string, unknown>): void {
    if (this.holding || !this.ws) {
      if (message.event === 'clear')
        this.held = []; // nothing of it was played: it is dropped, not sent
      else if (message.event !== 'media' || this.held.length < HELD_MAX) this.held.push(message);
      return;
    }
    this.write(message);
  }

  private write(message: Record<string, unknown>): void {
    if (this.ws?.readyState !== WebSocket.OPEN) return;
    const m = 'streamSid' in message ? { ...message, streamSid: this.streamSid } : message;
    this.ws.send(JSON.stringify(m));
  }

  /** The stream is being replaced: keep what is sent until the new one starts. */
  hold(): void {
    this.holding = true;
  }

  /** The stream was not replaced after all (the provider refused): what was kept goes out on it. */
  release(): void {
    if (!this.holding) return;
    this.holding = false;
    this.flush();
  }

  /** Whether the stream is away or about to be (kept messages wait for the next stream). */
  get away(): boolean {
    return this.holding || !this.ws;
  }

  /** Whether `ws` is the socket sent on now (or the one a hold is waiting to see replaced). */
  carries(ws: WebSocket): boolean {
    return this.ws === ws;
  }

  /** The socket closed while the stream was away: the next one is waited for. */
  lost(): void {
    this.ws = null;
  }

  /** The new stream started: what was kept goes out on it, then everything after. */
  attach(ws: WebSocket, streamSid: string): void {
    this.ws = ws;
    this.streamSid = streamSid;
    this.holding = false;
    this.flush();
  }

  private flush(): void {
    const held = this.held;
    this.held = [];
    for (const m of held) this.write(m);
  }
}
