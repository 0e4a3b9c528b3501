import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';

/** The configuration of an app taking web calls against the local model and speech servers. */
export function webCallEnv(
  { llm, speech }: { llm: { url: string }; speech: { url: string } },
  publicUrl: string,
): Record<string, string> {
  return {
    LLM_BASE_URL: llm.url,
    STT_BASE_URL: speech.url,
    TTS_BASE_URL: speech.url,
    PUBLIC_BASE_URL: publicUrl,
  };
}

/** 20 ms of 16 kHz 16-bit PCM: a tone (speech to the service's ears) or near silence. */
export function pcmFrame(kind: 'tone' | 'silence', index = 0): Buffer {
  const out = Buffer.alloc(640);
  for (let i = 0; i < 320; i++) {
    const t = index * 320 + i;
    const v =
      kind === 'tone' ? Math.round(8000 * Math.sin((2 * Math.PI * 440 * t) / 16000)) : ((t * 7919) % 21) - 10;
    out.writeInt16LE(v, i * 2);
  }
  return out;
}

export interface WebMessage {
  type: string;
  [key: string]: any;
}

/** A refused handshake: the HTTP status and the general error body. */
export interface Refusal {
  status: number;
  body: { success: false; message: string; error: { code: string; details?: string } };
}

/**
 * A client of the web call protocol (docs/api.md, Web calls), as the call page speaks it: opens the socket with the
 * client token, says `start`, sends generated 16 kHz PCM, echoes the agent's marks once "played" (at once, unless
 * told not to) and records what it receives.
 */
export class WebCallClient {
  readonly messages: WebMessage[] = [];
  /** When each message of `messages` arrived (performance.now()). */
  readonly messagesAt: number[] = [];
  /** The agent's audio frames: their size and arrival (performance.now()). */
  readonly frames: { bytes: number; at: number }[] = [];
  echoMarks = true;
  closed = false;
  closeCode: number | null = null;
  closeReason = '';
  private sent = 0;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw: Buffer, binary: boolean) => {
      if (binary) {
        this.frames.push({ bytes: raw.length, at: performance.now() });
        return;
      }
      const msg = JSON.parse(raw.toString()) as WebMessage;
      this.messages.push(msg);
      this.messagesAt.push(performance.now());
      if (msg.type === 'mark' && this.echoMarks) this.send({ type: 'mark', name: msg.name });
    });
    ws.on('close', (code: number, reason: Buffer) => {
      this.closed = true;
      this.closeCode = code;
      this.closeReason = reason.toString();
    });
    ws.on('error', () => undefined);
  }

  /** Opens the socket (`url` the call's websocket_url, on the app's address); rejects with the Refusal if refused. */
  static connect(url: string, options: { origin?: string } = {}): Promise<WebCallClient> {
    const ws = new WebSocket(url, {
      rejectUnauthorized: false,
      ...(options.origin ? { origin: options.origin } : {}),
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new WebCallClient(ws)));
      ws.once('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          reject(
            Object.assign(new Error(`handshake refused: ${res.statusCode}`), {
              status: res.statusCode ?? 0,
              body: text ? JSON.parse(text) : null,
            }),
          );
        });
      });
      ws.once('error', (err) => reject(err));
    });
  }

  /** The refusal of a handshake expected to be refused. */
  static async refusal(url: string, options: { origin?: string } = {}): Promise<Refusal> {
    try {
      const client = await WebCallClient.connect(url, options);
      client.close();
    } catch (err) {
      const { status, body } = err as Refusal;
      if (status) return { status, body };
      throw err;
    }
    throw new Error('the handshake was accepted');
  }

  send(message: Record<string, unknown>): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  sendRaw(data: Buffer | string, binary = typeof data !== 'string'): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(data, { binary });
  }

  start(): void {
    this.send({ type: 'start', sample_rate: 16000 });
  }

  /** Sends `ms` of tone or silence as 20 ms frames (faster than real time: the service counts frames). */
  play(kind: 'tone' | 'silence', ms: number): void {
    for (let i = 0; i < ms / 20; i++) this.sendRaw(pcmFrame(kind, this.sent++));
  }

  /** An utterance: tone, then the silence that ends the turn. */
  utter(toneMs = 400, silenceMs = 800): void {
    this.play('tone', toneMs);
    this.play('silence', silenceMs);
  }

  events(type: string): WebMessage[] {
    return this.messages.filter((m) => m.type === type);
  }

  /** Hangs up as the page does: `end`, then the server closes the socket. */
  hangUp(reason?: string): void {
    this.send(reason ? { type: 'end', reason } : { type: 'end' });
  }

  /** Resolves once the socket is closed (or at the timeout, failing). */
  async whenClosed(timeoutMs = 10_000): Promise<{ code: number | null; reason: string }> {
    const until = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > until) throw new Error('socket not closed');
      await new Promise((r) => setTimeout(r, 20));
    }
    return { code: this.closeCode, reason: this.closeReason };
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close();
  }
}
