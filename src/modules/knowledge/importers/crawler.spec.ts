import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { outboundRequest } from '@/common/net/outbound-http';
import { Crawler, RequestFn } from './crawler';

describe('Crawler and the address guard', () => {
  let server: http.Server;
  let base: string;
  const hits: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/public/start') return res.writeHead(302, { location: '/internal/admin' }).end();
      if (req.url === '/public/page')
        return res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Public text</p>');
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Internal secrets</p>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  // The local server stands in for a public site under /public; every other address keeps the real policy.
  const isPublic = (url: string | URL) => /^\/(public\/|robots\.txt$)/.test(new URL(String(url)).pathname);
  const request: RequestFn = (url, policy, options) =>
    outboundRequest(url, isPublic(url) ? { allowPrivate: true } : policy, options);

  it('re-checks a redirect target and refuses one that points at a loopback address', async () => {
    const crawler = new Crawler({ policy: { allowPrivate: false }, request, maxPages: 5, depth: 0 });
    const pages: string[] = [];
    await expect(
      (async () => {
        for await (const page of crawler.crawl(`${base}/public/start`)) pages.push(page.text);
      })(),
    ).rejects.toThrow(/cannot crawl .*: refused: private address/);
    expect(pages).toEqual([]);
    expect(hits).toContain('/public/start');
    expect(hits).not.toContain('/internal/admin');
  });

  it('reads a page the policy allows', async () => {
    const crawler = new Crawler({ policy: { allowPrivate: false }, request, maxPages: 5, depth: 0 });
    const pages: string[] = [];
    for await (const page of crawler.crawl(`${base}/public/page`)) pages.push(page.text);
    expect(pages).toEqual(['Public text']);
  });
});
