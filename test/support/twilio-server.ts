import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import request from 'supertest';

export const TWILIO_SID = 'AC00000000000000000000000000000001';
export const TWILIO_TOKEN = 'twilio-test-auth-token';

export interface TwilioRequest {
  method: string;
  path: string;
  form: Record<string, string | string[]>;
  authorization?: string;
}

/**
 * A real local HTTP server speaking Twilio's REST API for calls and recordings: it records every request, answers
 * like Twilio (`CA...` sids, error bodies when told to) and posts signed callbacks to the service the way Twilio
 * does: signed over the public URL (PUBLIC_BASE_URL) and delivered to where the service listens.
 */
export class TwilioServer {
  readonly requests: TwilioRequest[] = [];
  /** The next dial's answer: a Twilio error, or null for success. */
  dialError: { status: number; code: number; message: string } | null = null;
  recordings = new Map<string, Buffer>();
  deletedRecordings: string[] = [];
  private seq = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<TwilioServer> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const self = new TwilioServer(server, `http://127.0.0.1:${port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void self.handle(req, res));
    return self;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  dials(): TwilioRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && /\/Calls\.json$/.test(r.path));
  }

  updates(sid?: string): TwilioRequest[] {
    return this.requests.filter(
      (r) => r.method === 'POST' && /\/Calls\/CA[^/]+\.json$/.test(r.path) && (!sid || r.path.includes(sid)),
    );
  }

  // ---- SIP (trunks, SIP domains, extensions) -------------------------------------------------------------
  /** Dials over a SIP trunk: `To` is a SIP address; the form keeps `SipAuthUsername`/`SipAuthPassword`. */
  sipDials(): TwilioRequest[] {
    return this.dials().filter((d) => String(d.form.To).startsWith('sip:'));
  }

  /** Call updates whose TwiML bridges to a SIP address (`<Dial><Sip>`: a forward to an extension). */
  sipForwards(sid?: string): TwilioRequest[] {
    return this.updates(sid).filter((u) => String(u.form.Twiml ?? '').includes('<Sip'));
  }
  // ---- end SIP ------------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const params = new URLSearchParams(Buffer.concat(chunks).toString());
    const form: Record<string, string | string[]> = {};
    for (const key of new Set(params.keys())) {
      const all = params.getAll(key);
      form[key] = all.length > 1 ? all : all[0];
    }
    const path = (req.url ?? '').split('?')[0];
    this.requests.push({ method: req.method ?? '', path, form, authorization: req.headers.authorization });
    const expected = `Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`;
    const json = (status: number, body: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.authorization !== expected) return json(401, { code: 20003, message: 'Authenticate' });
    const base = `/2010-04-01/Accounts/${TWILIO_SID}`;
    if (req.method === 'POST' && path === `${base}/Calls.json`) {
      if (this.dialError) {
        const e = this.dialError;
        this.dialError = null;
        return json(e.status, { code: e.code, message: e.message, status: e.status });
      }
      this.seq += 1;
      const sid = `CA${String(this.seq).padStart(32, '0')}`;
      return json(201, { sid, status: 'queued', to: form.To, from: form.From });
    }
    const update = new RegExp(`^${base}/Calls/(CA[0-9a-f]+)\\.json$`).exec(path);
    if (req.method === 'POST' && update)
      return json(200, { sid: update[1], status: form.Status ?? 'in-progress' });
    const rec = new RegExp(`^${base}/Recordings/(RE[0-9a-f]+)\\.(wav|json)$`).exec(path);
    if (rec && req.method === 'GET' && rec[2] === 'wav') {
      const wav = this.recordings.get(rec[1]);
      if (!wav) return json(404, { code: 20404, message: 'not found' });
      return void res.writeHead(200, { 'content-type': 'audio/x-wav' }).end(wav);
    }
    if (rec && req.method === 'DELETE') {
      this.deletedRecordings.push(rec[1]);
      return void res.writeHead(204).end();
    }
    json(404, { code: 20404, message: 'not found' });
  }

  recordingUrl(sid: string): string {
    return `${this.url}/2010-04-01/Accounts/${TWILIO_SID}/Recordings/${sid}`;
  }
}

/** Posts a form to the service as Twilio does: signed over the public URL, sent to the listening address. */
export function postSigned(
  appUrl: string,
  publicUrl: string,
  form: Record<string, string>,
  options: { signature?: string | null; token?: string } = {},
): request.Test {
  const u = new URL(publicUrl);
  const signature =
    options.signature === undefined
      ? getExpectedTwilioSignature(options.token ?? TWILIO_TOKEN, publicUrl, form)
      : options.signature;
  const req = request(appUrl).post(`${u.pathname}${u.search}`).disableTLSCerts().type('form').send(form);
  return signature === null ? req : req.set('X-Twilio-Signature', signature);
}
