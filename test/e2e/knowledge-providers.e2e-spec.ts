import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSite, upload, waitFor } from '../factories/knowledge.factory';
import { useTestApp } from '../setup/suite';

// Each app gets its own queue prefix, so only its own workers (with its own configuration) run its jobs.
const prefix = (name: string) => `${process.env.REDIS_PREFIX ?? 'cap-test'}-${name}`;

/** An OpenAI-compatible transcription endpoint that records what it was sent and always hears the same sentence. */
async function startTranscriber() {
  const seen: { path?: string; auth?: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        path: req.url,
        auth: req.headers.authorization,
        body: Buffer.concat(chunks).toString('latin1'),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ text: 'Hello, I would like to book a table for two on Friday.' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    seen,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('Knowledge: address guard on crawls', () => {
  const suite = useTestApp({
    servers: {
      site: () =>
        startSite({
          '/': [200, { 'content-type': 'text/html' }, '<p>internal</p>'],
          '/hop': [302, { location: '/' }, ''],
        }),
    },
    env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'false', REDIS_PREFIX: prefix('guard') },
    tenants: ['tenant'],
  });

  it('refuses a crawl of a loopback target in any notation when it is saved, with the reason', async () => {
    const { site, tenant } = suite;
    const port = new URL(site.url).port;
    const cases: [string, RegExp][] = [
      [`${site.url}/`, /127\.0\.0\.1 is not allowed \(loopback\)/],
      [`http://2130706433:${port}/`, /127\.0\.0\.1 is not allowed \(loopback\)/],
      [`http://[::ffff:127.0.0.1]:${port}/`, /not allowed \(ipv4Mapped\)/],
      [`http://localhost:${port}/hop`, /localhost is not allowed \(loopback\)/],
    ];
    for (const [url, reason] of cases) {
      const res = await tenant.http
        .post('/api/v1/data/import/website')
        .send({ name: 'Internal', url, depth: 0 });
      expect(res.status).toBe(422);
      // Knowledge routes answer the short error body: the message names the field and says why.
      expect(res.body.message).toMatch(/url must not target a private, loopback or reserved address/);
      expect(res.body.message).toMatch(reason);
    }
    const list = await tenant.http.get('/api/v1/data').expect(200);
    expect(list.body.data.items).toEqual([]);
    expect(site.hits).toEqual([]);
  });
});

describe('Knowledge: audio through the transcription port', () => {
  const suite = useTestApp({
    servers: { transcriber: startTranscriber },
    env: ({ transcriber }) => ({
      LLM_BASE_URL: transcriber.base,
      LLM_API_KEY: 'sk-test',
      REDIS_PREFIX: prefix('audio'),
    }),
    tenants: ['tenant'],
  });

  it('transcribes an uploaded audio file with the OpenAI-compatible endpoint and chunks the text', async () => {
    const { tenant, transcriber } = suite;
    const seen = transcriber.seen;
    const mp3 = Buffer.concat([
      Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00', 'latin1'),
      Buffer.alloc(256, 0x55),
    ]);
    const res = await upload(tenant, 'Voicemail', mp3, 'voicemail.mp3');
    expect(res.body.data.path_ext).toBe('mp3');
    const done = await waitFor(tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 2, records_count: 1 });
    const rows = await tenant.http.get(`/api/v1/data/${res.body.data.uuid}/records`);
    expect(rows.body.data.items[0].data).toEqual({
      content: 'Hello, I would like to book a table for two on Friday.',
      source: 'voicemail.mp3',
      position: 0,
    });
    expect(seen[0].path).toBe('/v1/audio/transcriptions');
    expect(seen[0].auth).toBe('Bearer sk-test');
    expect(seen[0].body).toContain('name="model"');
    expect(seen[0].body).toContain('filename="voicemail.mp3"');
  });
});
