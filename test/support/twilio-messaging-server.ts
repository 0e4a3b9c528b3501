import { createHmac, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

/** Twilio's request signature: HMAC-SHA1 over the URL then each POST parameter (sorted by name) as name+value. */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf-8')).digest('base64');
}

export interface TwilioMessageRequest {
  accountSid: string;
  authorization: string | undefined;
  params: Record<string, string>;
  sid: string;
  /** When it arrived (performance.now() of this process). */
  at: number;
}

/**
 * A local server speaking Twilio's Messaging REST API (`POST /2010-04-01/Accounts/{sid}/Messages.json`): records
 * every message; a destination ending 0004 is refused with Twilio's error body (code 21211); while `unavailable`
 * is above zero, that many requests are answered `503` (Twilio's body, code 20503) and counted in `turnedAway`.
 */
export class TwilioMessagingServer {
  readonly messages: TwilioMessageRequest[] = [];
  unavailable = 0;
  turnedAway = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<TwilioMessagingServer> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const self = new TwilioMessagingServer(server, `http://127.0.0.1:${port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void self.handle(req, res));
    return self;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(req.url ?? '');
    res.setHeader('Content-Type', 'application/json');
    if (req.method !== 'POST' || !match) {
      res.statusCode = 404;
      res.end(JSON.stringify({ code: 20404, message: 'The requested resource was not found', status: 404 }));
      return;
    }
    const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    if (this.unavailable > 0) {
      this.unavailable -= 1;
      this.turnedAway += 1;
      res.statusCode = 503;
      res.end(JSON.stringify({ code: 20503, message: 'Service Unavailable', status: 503 }));
      return;
    }
    if (params.To?.endsWith('0004')) {
      res.statusCode = 400;
      res.end(
        JSON.stringify({ code: 21211, message: `The 'To' number ${params.To} is not valid.`, status: 400 }),
      );
      return;
    }
    const sid = `SM${randomBytes(16).toString('hex')}`;
    this.messages.push({
      accountSid: match[1],
      authorization: req.headers.authorization,
      params,
      sid,
      at: performance.now(),
    });
    res.statusCode = 201;
    res.end(
      JSON.stringify({
        sid,
        account_sid: match[1],
        from: params.From,
        to: params.To,
        body: params.Body,
        status: 'queued',
        num_segments: '1',
        direction: 'outbound-api',
        api_version: '2010-04-01',
        date_created: new Date().toUTCString(),
        uri: `/2010-04-01/Accounts/${match[1]}/Messages/${sid}.json`,
      }),
    );
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}
