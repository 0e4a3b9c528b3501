import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

/** Meta's `X-Hub-Signature-256` of a webhook body. */
export function metaSignature(appSecret: string, raw: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
}

export interface GraphRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: any;
  /** The wamid a Cloud API send is (or, while held, will be) answered with. */
  wamid?: string;
}

export interface GraphTemplate {
  id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: unknown[];
}

/**
 * A local server speaking the parts of Meta's Graph API the service uses: Cloud API and Send API messages, a
 * WABA's message templates (create, paged list, delete by name) and media downloads. Answers like Meta, errors
 * included.
 */
export class MetaServer {
  readonly requests: GraphRequest[] = [];
  /** Recipients (digits, as sent) whose messages Meta refuses with this error code. */
  readonly refuse = new Map<string, number>();
  /** The WABA's templates as Meta holds them. */
  templates: GraphTemplate[] = [];
  /**
   * Media of inbound messages by media id, served as Meta does: `GET /{media-id}` answers a short-lived `url`, and
   * that URL (another path of this server, like Meta's lookaside host) answers the bytes to a bearer token only.
   */
  readonly media = new Map<string, { mimeType: string; bytes: Buffer }>();
  /**
   * While true, Cloud API sends are held unanswered (recorded at once with the wamid they will get) until `release`,
   * as when Meta's webhook reaches us before its answer to the send.
   */
  holdSends = false;
  private readonly held: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<MetaServer> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const self = new MetaServer(server, `http://127.0.0.1:${port}/v21.0`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void self.handle(req, res));
    return self;
  }

  /** Answers the held sends and stops holding. */
  release(): void {
    this.holdSends = false;
    for (const answer of this.held.splice(0)) answer();
  }

  sent(path: string): GraphRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === path);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/v21\.0/, '');
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : null;
    const request: GraphRequest = {
      method: req.method ?? '',
      path,
      query: url.searchParams,
      authorization: req.headers.authorization,
      body,
    };
    this.requests.push(request);
    const send = (status: number, value: unknown) => {
      res.statusCode = status;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(value));
    };
    const error = (status: number, code: number, message: string) =>
      send(status, { error: { message, type: 'OAuthException', code, fbtrace_id: 'A1b2C3' } });
    const parts = path.split('/').filter(Boolean);
    if (req.method === 'GET' && parts[0] === 'media-download') {
      const file = this.media.get(url.searchParams.get('mid') ?? '');
      if (!file) return error(404, 100, 'Unknown media');
      if (!req.headers.authorization?.startsWith('Bearer '))
        return error(401, 190, 'Invalid OAuth access token');
      res.writeHead(200, { 'Content-Type': file.mimeType, 'Content-Length': file.bytes.length });
      return void res.end(file.bytes);
    }
    if (req.method === 'GET' && parts.length === 1 && this.media.has(parts[0])) {
      const file = this.media.get(parts[0])!;
      return send(200, {
        messaging_product: 'whatsapp',
        url: `${new URL(this.url).origin}/media-download/?mid=${encodeURIComponent(parts[0])}&ext=${Date.now()}`,
        mime_type: file.mimeType,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
        file_size: file.bytes.length,
        id: parts[0],
      });
    }
    if (parts[1] === 'messages' && req.method === 'POST') {
      if (body?.messaging_product === 'whatsapp') {
        const code = this.refuse.get(body.to);
        if (code) return error(400, code, code === 131047 ? 'Re-engagement message' : 'Message failed');
        request.wamid = `wamid.${randomBytes(12).toString('hex')}`;
        if (this.holdSends) await new Promise<void>((r) => this.held.push(r));
        return send(200, {
          messaging_product: 'whatsapp',
          contacts: [{ input: body.to, wa_id: body.to }],
          messages: [{ id: request.wamid }],
        });
      }
      return send(200, {
        recipient_id: body?.recipient?.id,
        message_id: `m_${randomBytes(12).toString('hex')}`,
      });
    }
    if (parts[1] === 'message_templates') {
      if (req.method === 'POST') {
        if (String(body?.name).startsWith('bad_'))
          return error(400, 100, 'Invalid parameter: template name is not allowed');
        const id =
          String(100000 + this.templates.length) + String(randomBytes(2).readUInt16BE(0)).padStart(5, '0');
        this.templates.push({
          id,
          name: body.name,
          language: body.language,
          category: body.category,
          status: 'PENDING',
          components: body.components,
        });
        return send(200, { id, status: 'PENDING', category: body.category });
      }
      if (req.method === 'DELETE') {
        const name = url.searchParams.get('name');
        this.templates = this.templates.filter((t) => t.name !== name);
        return send(200, { success: true });
      }
      const limit = Number(url.searchParams.get('limit') ?? 25);
      const after = Number(url.searchParams.get('after') ?? 0);
      const page = this.templates.slice(after, after + Math.min(limit, 2));
      const nextAt = after + page.length;
      return send(200, {
        data: page,
        paging: {
          cursors: { before: String(after), after: String(nextAt) },
          ...(nextAt < this.templates.length
            ? { next: `${this.url}/${parts[0]}/message_templates?limit=${limit}&after=${nextAt}` }
            : {}),
        },
      });
    }
    error(404, 803, 'Unknown path');
  }

  close(): Promise<void> {
    this.release();
    return new Promise((r) => this.server.close(() => r()));
  }
}
