import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

/** Words that mean the same to the test model: each maps to the first word of its group. */
const SYNONYMS = [
  ['refund', 'refunds', 'reimbursement', 'reimburse', 'reimbursed', 'repaid', 'repayment'],
  ['price', 'prices', 'cost', 'costs', 'expensive', 'cheap', 'fee'],
  ['open', 'opening', 'hours', 'closed'],
  ['holiday', 'holidays', 'vacation', 'leave'],
];
const CONCEPT = new Map(SYNONYMS.flatMap((group) => group.map((w) => [w, group[0]] as const)));

/** A bag of concepts hashed into `dims` dimensions: texts sharing meaning (per SYNONYMS) share dimensions. */
export function testEmbedding(text: string, dims = 64): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (word.length < 3) continue;
    const concept = CONCEPT.get(word) ?? word;
    let h = 2166136261;
    for (const ch of concept) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    v[h % dims] += CONCEPT.has(word) ? 3 : 1;
  }
  return v;
}

/** A real local HTTP server speaking OpenAI-compatible embeddings (`POST /v1/embeddings`). */
export class EmbeddingsServer {
  readonly requests: { model: string; input: string[]; authorization?: string }[] = [];
  failing = false;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<EmbeddingsServer> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const self = new EmbeddingsServer(server, `http://127.0.0.1:${port}/v1`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void self.handle(req, res));
    return self;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { model: string; input: string | string[] };
    const input = Array.isArray(body.input) ? body.input : [body.input];
    this.requests.push({ model: body.model, input, authorization: req.headers.authorization });
    if (this.failing) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        object: 'list',
        model: body.model,
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: testEmbedding(text) })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      }),
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
