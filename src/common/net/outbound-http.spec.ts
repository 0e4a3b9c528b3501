import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { outboundRequest, outboundUrlProblem } from './outbound-http';

describe('outbound URL rules at save time', () => {
  const closed = { allowPrivate: false };

  it.each([
    ['https://hooks.example.com/x', null],
    ['http://hooks.example.com/x', 'must be an https URL'],
    ['https://127.1/', /must not target a private, loopback or reserved address \(address 127\.0\.0\.1/],
    ['https://[::ffff:127.0.0.1]/', /ipv4Mapped/],
    ['https://169.254.169.254/', /linkLocal/],
    ['https://localhost/', /loopback/],
    ['https://u:p@example.com/', 'is not allowed: URLs with credentials are not allowed'],
    ['nope', 'must be an absolute URL'],
    [42, 'must be a URL string'],
    [`https://example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
  ])('%s: %s', (url, problem) => {
    const found = outboundUrlProblem(url, closed);
    if (problem === null || typeof problem === 'string') expect(found).toBe(problem);
    else expect(found).toMatch(problem);
  });

  it('plain http for crawled sites; anything where private targets are allowed', () => {
    expect(outboundUrlProblem('http://example.com/', { allowPrivate: false, allowHttp: true })).toBeNull();
    expect(outboundUrlProblem('http://127.0.0.1:9/', { allowPrivate: true })).toBeNull();
    expect(outboundUrlProblem('ftp://example.com/', { allowPrivate: true })).toBe(
      'must be an http or https URL',
    );
  });
});

describe('outboundRequest', () => {
  let server: Server;
  let base: string;
  const open = { allowPrivate: true };
  const hangsClosed: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/see-other') res.writeHead(303, { location: '/final' }).end();
      else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
      else if (req.url === '/slow') setTimeout(() => res.end('late'), 1000);
      else if (req.url === '/hang') res.on('close', () => hangsClosed.push(req.url!));
      else if (req.url === '/big') res.end('x'.repeat(10_000));
      else res.end(`${req.method} ${req.url}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('answers a redirect itself unless asked to follow; a 303 continues as a GET', async () => {
    expect((await outboundRequest(`${base}/see-other`, open, { method: 'POST', body: 'x' })).status).toBe(
      303,
    );
    const followed = await outboundRequest(`${base}/see-other`, open, {
      method: 'POST',
      body: 'x',
      maxRedirects: 2,
    });
    expect(followed.body.toString()).toBe('GET /final');
  });

  it('fails with a category the tenant may read, never a socket error', async () => {
    await expect(outboundRequest(`${base}/loop`, open, { maxRedirects: 3 })).rejects.toThrow(
      'too many redirects',
    );
    await expect(outboundRequest(`${base}/slow`, open, { timeoutMs: 100 })).rejects.toThrow(/^timeout$/);
    await expect(
      outboundRequest(`${base}/big`, open, { maxBytes: 100, failOnOverflow: true }),
    ).rejects.toThrow('response too large');
    await expect(outboundRequest('http://127.0.0.1:1/', open)).rejects.toThrow(/^unreachable$/);
    await expect(outboundRequest(`${base}/`, { allowPrivate: false })).rejects.toThrow(
      /^refused: private address$/,
    );
    await expect(outboundRequest('gopher://example.com/', open)).rejects.toThrow(/^refused: invalid URL$/);
  });

  it("stops on the caller's signal: the connection is closed and the category is aborted", async () => {
    const controller = new AbortController();
    const pending = outboundRequest(`${base}/hang`, open, { signal: controller.signal, keepAlive: true });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow(/^aborted$/);
    await new Promise((r) => setTimeout(r, 50));
    expect(hangsClosed).toEqual(['/hang']);
    await expect(outboundRequest(`${base}/`, open, { signal: controller.signal })).rejects.toThrow(
      /^aborted$/,
    );
  });
});
