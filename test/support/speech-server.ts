import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { wavDuration } from './stt-server';

/** A tone of `ms` milliseconds as 24 kHz 16-bit mono PCM, what `/audio/speech` answers. */
export function tonePcm24k(ms: number, hz = 440, amplitude = 8000): Buffer {
  const n = Math.round((24000 * ms) / 1000);
  const out = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++)
    out.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / 24000)), i * 2);
  return out;
}

/**
 * A real local HTTP server speaking the OpenAI-compatible audio endpoints: `/audio/transcriptions` answers the
 * queued transcripts in order (verbose_json), `/audio/speech` answers PCM of a fixed tone; both record the calls
 * and may wait a fixed latency.
 */
export class SpeechServer {
  readonly transcripts: string[] = [];
  /** `seconds`: the length of the WAV file received. */
  readonly transcriptions: { bytes: number; language: string | null; seconds: number }[] = [];
  readonly speeches: { input: string; voice: string; response_format: string; speed: number }[] = [];
  sttLatencyMs = 0;
  ttsLatencyMs = 0;
  /** Milliseconds of tone per character of input (at least 200 ms). */
  toneMsPerChar = 10;
  /** An error status each endpoint answers instead, as a failing service does (0: none). */
  failWith = { stt: 0, tts: 0 };

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<SpeechServer> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const self = new SpeechServer(server, `http://127.0.0.1:${port}/v1`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void self.handle(req, res));
    return self;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    if (req.method === 'POST' && req.url === '/v1/audio/transcriptions') {
      const text = body.toString('latin1');
      const language = /name="language"\r\n\r\n([^\r]*)/.exec(text)?.[1] ?? null;
      const form = await new Response(body, {
        headers: { 'content-type': req.headers['content-type'] ?? '' },
      }).formData();
      const file = form.get('file');
      const seconds = file instanceof Blob ? wavDuration(Buffer.from(await file.arrayBuffer())) : 0;
      this.transcriptions.push({ bytes: body.length, language, seconds });
      if (this.failWith.stt) return void res.writeHead(this.failWith.stt).end('{"error":"failed"}');
      if (this.sttLatencyMs) await new Promise((r) => setTimeout(r, this.sttLatencyMs));
      const transcript = this.transcripts.shift() ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ text: transcript, language: language ?? 'en', duration: 1, segments: [] }));
      return;
    }
    if (req.method === 'POST' && req.url === '/v1/audio/speech') {
      const parsed = JSON.parse(body.toString()) as SpeechServer['speeches'][number];
      this.speeches.push(parsed);
      if (this.failWith.tts) return void res.writeHead(this.failWith.tts).end('{"error":"failed"}');
      if (this.ttsLatencyMs) await new Promise((r) => setTimeout(r, this.ttsLatencyMs));
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      res.end(tonePcm24k(Math.max(200, parsed.input.length * this.toneMsPerChar)));
      return;
    }
    res.writeHead(404).end();
  }
}
