import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '@/config/app.config';
import { EmbeddingsError } from './embeddings.port';
import { OpenAiCompatibleEmbeddings } from './openai-compatible.embeddings';

describe('OpenAiCompatibleEmbeddings against a local embeddings server', () => {
  let server: Server;
  let base: string;
  let answer: (input: string[]) => { status: number; body: string };
  const seen: { url?: string; auth?: string; body: { model: string; input: string[] } }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const body = JSON.parse(raw) as { model: string; input: string[] };
        seen.push({ url: req.url, auth: req.headers.authorization, body });
        const { status, body: out } = answer(body.input);
        res.writeHead(status, { 'content-type': 'application/json' }).end(out);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const client = (baseUrl?: string) =>
    new OpenAiCompatibleEmbeddings({
      embeddings: { baseUrl, apiKey: 'ek', model: 'embed-test' },
    } as unknown as AppConfig);
  const json = (data: unknown) => ({ status: 200, body: JSON.stringify({ data }) });

  it('posts the texts with the model and key, and answers unit vectors in input order', async () => {
    // Answered out of order: `index` decides.
    answer = () =>
      json([
        { index: 1, embedding: [0, 2] },
        { index: 0, embedding: [3, 4] },
      ]);
    const vectors = await client(base).embed(['a', 'b']);
    expect(vectors).toEqual([
      [0.6, 0.8],
      [0, 1],
    ]);
    expect(seen.at(-1)).toEqual({
      url: '/v1/embeddings',
      auth: 'Bearer ek',
      body: { model: 'embed-test', input: ['a', 'b'] },
    });
  });

  it('refuses answers without a finite vector of one size for every input', async () => {
    for (const bad of [
      json([{ index: 0, embedding: [1, 2] }]),
      json([
        { index: 0, embedding: [1, 2] },
        { index: 1, embedding: [1] },
      ]),
      json([
        { index: 0, embedding: [1, 'x'] },
        { index: 1, embedding: [1, 2] },
      ]),
      { status: 200, body: 'not json' },
    ]) {
      answer = () => bad;
      await expect(client(base).embed(['a', 'b'])).rejects.toMatchObject({ kind: 'invalid_response' });
    }
    answer = () => ({ status: 500, body: '{}' });
    await expect(client(base).embed(['a'])).rejects.toMatchObject({ kind: 'http' });
  });

  it('is off without a base URL', async () => {
    expect(client(undefined).isConfigured()).toBe(false);
    await expect(client(undefined).embed(['a'])).rejects.toBeInstanceOf(EmbeddingsError);
    expect(await client(base).embed([])).toEqual([]);
  });
});
