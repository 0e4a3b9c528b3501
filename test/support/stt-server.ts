import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

/** One request to `/v1/audio/transcriptions` as the server received it. */
export interface SttCall {
  fields: Record<string, string>;
  file: Buffer;
  fileName: string;
  authorization?: string;
}

export interface SttAnswer {
  status?: number;
  /** A verbose_json body (or any JSON). */
  body?: unknown;
}

/** Seconds of a canonical 44-byte-header PCM WAV (the files tests generate), or 0. */
export function wavDuration(file: Buffer): number {
  if (file.length < 44 || file.toString('latin1', 0, 4) !== 'RIFF') return 0;
  const byteRate = file.readUInt32LE(28);
  return byteRate ? (file.length - 44) / byteRate : 0;
}

/**
 * The default answer: a segment every 2 seconds of audio. A track whose first sample is negative speaks as the
 * customer (`Customer line N`), any other as the agent (`Agent line N`); segment starts are offset by 1 s for the
 * customer so two tracks interleave.
 */
export function defaultSttAnswer(call: SttCall): SttAnswer {
  const duration = wavDuration(call.file) || 4;
  const who = call.file.length > 46 && call.file.readInt16LE(44) < 0 ? 'Customer' : 'Agent';
  const shift = who === 'Customer' ? 1 : 0;
  const segments = [];
  for (let start = shift, i = 0; start < duration; start += 2, i++)
    segments.push({ id: i, start, end: Math.min(duration, start + 1.5), text: ` ${who} line ${i}` });
  return {
    body: {
      task: 'transcribe',
      language: call.fields.language ?? 'english',
      duration,
      text: segments.map((s) => s.text.trim()).join(' '),
      segments,
    },
  };
}

/** A real local HTTP server speaking OpenAI's `POST /v1/audio/transcriptions` (multipart), scriptable. */
export class SttServer {
  readonly calls: SttCall[] = [];
  respond: (call: SttCall, n: number) => SttAnswer = defaultSttAnswer;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<SttServer> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const self = new SttServer(server, `http://127.0.0.1:${port}/v1`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void self.handle(req, res));
    return self;
  }

  reset(): void {
    this.calls.length = 0;
    this.respond = defaultSttAnswer;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
      res.writeHead(404).end();
      return;
    }
    // The platform's own multipart parser (undici's FormData), as a service would read the upload.
    const form = await new Response(Buffer.concat(chunks), {
      headers: { 'content-type': req.headers['content-type'] ?? '' },
    }).formData();
    const call: SttCall = {
      fields: {},
      file: Buffer.alloc(0),
      fileName: '',
      authorization: req.headers.authorization,
    };
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') call.fields[name] = value;
      else {
        call.file = Buffer.from(await value.arrayBuffer());
        call.fileName = value.name;
      }
    }
    this.calls.push(call);
    const answer = this.respond(call, this.calls.length);
    res
      .writeHead(answer.status ?? 200, { 'content-type': 'application/json' })
      .end(JSON.stringify(answer.body ?? { error: { message: 'failed' } }));
  }
}

/** A mono 16-bit PCM WAV of `seconds` at `rate` Hz, every sample `value` (negative marks the customer's track). */
export function pcmWav(seconds: number, value = 1000, rate = 8000): Buffer {
  const data = Buffer.alloc(Math.round(seconds * rate) * 2);
  for (let i = 0; i < data.length; i += 2) data.writeInt16LE(value, i);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}
