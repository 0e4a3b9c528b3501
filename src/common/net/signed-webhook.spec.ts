import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { answerBody, sendSignedWebhook, SignedWebhook } from './signed-webhook';

describe('sendSignedWebhook', () => {
  let server: Server;
  let base: string;
  const open = { allowPrivate: true };
  const received: { method: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ method: req.method!, headers: req.headers, body: Buffer.concat(chunks).toString() });
        if (req.url === '/slow') setTimeout(() => res.end('late'), 1000);
        else if (req.url === '/big') res.end('x'.repeat(10_000));
        else if (req.url === '/json') res.end('{"response":"ok"}');
        else res.writeHead(req.url === '/gone' ? 410 : 200).end('plain');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (received.length = 0));

  const hook = (over: Partial<SignedWebhook> = {}): SignedWebhook => ({
    url: `${base}/hook`,
    body: '{"a":1}',
    id: 'msg_1',
    secrets: [secret],
    userAgent: 'agent-platform-test/1.0',
    timeoutMs: 2000,
    maxBytes: 4096,
    ...over,
  });

  it('POSTs the body with Standard Webhooks headers a receiver verifies, and answers any status', async () => {
    const sent = await sendSignedWebhook(hook({ url: `${base}/gone` }), open);
    expect(sent.error).toBeNull();
    expect(sent.response?.status).toBe(410);
    expect(sent.durationMs).toBeGreaterThanOrEqual(0);
    const [req] = received;
    expect(req.method).toBe('POST');
    expect(req.body).toBe('{"a":1}');
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': '7',
      'user-agent': 'agent-platform-test/1.0',
      'webhook-id': 'msg_1',
    });
    expect(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(new Webhook(secret).verify(req.body, req.headers as Record<string, string>)).toEqual({ a: 1 });
  });

  it('signs once per secret, sends unsigned without one; extra headers never replace the webhook ones', async () => {
    await sendSignedWebhook(hook({ secrets: [secret, 'plain'] }), open);
    expect(String(received[0].headers['webhook-signature']).split(' ')).toHaveLength(2);
    await sendSignedWebhook(
      hook({
        secrets: [],
        method: 'PUT',
        headers: { authorization: 'Bearer t', 'user-agent': 'mine', 'webhook-id': 'forged' },
      }),
      open,
    );
    expect(received[1].method).toBe('PUT');
    expect(received[1].headers).toMatchObject({
      authorization: 'Bearer t',
      'user-agent': 'mine',
      'webhook-id': 'msg_1',
    });
    expect(received[1].headers['webhook-signature']).toBeUndefined();
  });

  it('answers failures as categories: timeout, refused private address; a big answer is cut at the cap', async () => {
    expect(await sendSignedWebhook(hook({ url: `${base}/slow`, timeoutMs: 100 }), open)).toMatchObject({
      response: null,
      error: 'timeout',
    });
    expect(await sendSignedWebhook(hook(), { allowPrivate: false })).toMatchObject({
      response: null,
      error: 'refused: private address',
    });
    const big = await sendSignedWebhook(hook({ url: `${base}/big`, maxBytes: 100 }), open);
    expect(big.response?.body.length).toBe(100);
    expect(big.response?.truncated).toBe(true);
  });

  it('reads an answer as JSON when it parses, else as text, empty as null', async () => {
    const json = await sendSignedWebhook(hook({ url: `${base}/json` }), open);
    expect(answerBody(json.response!)).toEqual({ response: 'ok' });
    const text = await sendSignedWebhook(hook(), open);
    expect(answerBody(text.response!)).toBe('plain');
    expect(answerBody({ ...text.response!, body: Buffer.from(' ') })).toBeNull();
  });
});
