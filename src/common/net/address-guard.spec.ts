import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  assertAllowedUrl,
  blockedRange,
  BlockedAddressError,
  guardedLookup,
  safeRequest,
} from './address-guard';

const closed = { allowPrivate: false };
const open = { allowPrivate: true };

describe('blockedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:7f00:1', 'ipv4Mapped'],
    ['::', 'unspecified'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2002:7f00:1::', '6to4'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2001::1', 'teredo'],
    ['::7f00:1', 'ipv4Compatible'],
    ['100::1', 'discard'],
  ])('refuses %s (%s)', (address, range) => {
    expect(blockedRange(address)).toBe(range);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])('lets public %s through', (address) => {
    expect(blockedRange(address)).toBeNull();
  });
});

describe('assertAllowedUrl', () => {
  it.each([
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::127.0.0.1]/',
    'http://127.1/',
    'http://0x7f.0.0.1/',
    'http://[fd12:3456::1]/',
    'http://[fe80::1]/',
    'http://224.0.0.1/',
    'http://240.0.0.1/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://[::1]:8080/',
    'http://10.1.2.3/',
    'http://169.254.169.254/latest/meta-data',
    'http://localhost:3000/',
    'http://api.localhost/',
    'http://LOCALHOST./',
    'http://localhost..:3000/',
    'http://Api.LocalHost./',
    'http://localhost%2E/',
    'http://localhost\u3002/',
    'http://10.0.0.1../',
    'http://[::1]./',
    'http://./',
  ])('refuses %s', (url) => {
    expect(() => assertAllowedUrl(url, closed)).toThrow(BlockedAddressError);
  });

  it('refuses other schemes and credentials whatever the policy', () => {
    expect(() => assertAllowedUrl('file:///etc/passwd', open)).toThrow(/unsupported scheme/);
    expect(() => assertAllowedUrl('ftp://example.com/', open)).toThrow(/unsupported scheme/);
    expect(() => assertAllowedUrl('http://u:p@example.com/', open)).toThrow(/credentials/);
  });

  it('lets public names and private ones (when allowed) through', () => {
    expect(assertAllowedUrl('https://example.com/a', closed).hostname).toBe('example.com');
    expect(assertAllowedUrl('https://Example.COM./a', closed).hostname).toBe('example.com.');
    expect(assertAllowedUrl('http://127.0.0.1:8080/', open).port).toBe('8080');
  });
});

describe('guardedLookup', () => {
  const lookup = (policy: { allowPrivate: boolean }, host: string) =>
    new Promise<string>((resolve, reject) =>
      guardedLookup(policy)(host, { family: 0 }, (err, address) =>
        err ? reject(err) : resolve(address as string),
      ),
    );

  it('refuses a name that resolves to loopback at connect time', async () => {
    await expect(lookup(closed, 'localhost')).rejects.toThrow(/resolves to .* not allowed/);
  });

  it('resolves it when private targets are allowed', async () => {
    await expect(lookup(open, 'localhost')).resolves.toMatch(/127\.0\.0\.1|::1/);
  });
});

describe('safeRequest', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://127.0.0.1:1/next' }).end();
      } else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(Buffer.alloc(64 * 1024, 97));
      } else if (req.url === '/slow') {
        res.writeHead(200);
        res.write('a');
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('refuses a loopback target before connecting when private targets are off', async () => {
    await expect(safeRequest(`${base}/`, closed)).rejects.toThrow(/127\.0\.0\.1 is not allowed \(loopback\)/);
  });

  it('refuses a name resolving to loopback when private targets are off', async () => {
    const port = (server.address() as AddressInfo).port;
    await expect(safeRequest(`http://localhost:${port}/`, closed)).rejects.toThrow(BlockedAddressError);
  });

  it('fetches, and reports redirects without following them', async () => {
    const ok = await safeRequest(`${base}/`, open);
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toBe('hello');
    const moved = await safeRequest(`${base}/redirect`, open);
    expect(moved.status).toBe(302);
    expect(moved.location).toBe('http://127.0.0.1:1/next');
    // The redirect target goes through the same check when the caller follows it.
    await expect(safeRequest(moved.location!, closed)).rejects.toThrow(/not allowed/);
  });

  it('caps the body and enforces the deadline', async () => {
    const big = await safeRequest(`${base}/big`, open, { maxBytes: 1000 });
    expect(big.truncated).toBe(true);
    expect(big.body.length).toBe(1000);
    await expect(safeRequest(`${base}/big`, open, { maxBytes: 1000, failOnOverflow: true })).rejects.toThrow(
      /larger than/,
    );
    await expect(safeRequest(`${base}/slow`, open, { timeoutMs: 200 })).rejects.toThrow(/timed out/);
  });

  it('with keepAlive reuses one connection, never across policies, and replaces a socket the server reset while idle', async () => {
    const sockets = new Set<unknown>();
    const onConnection = (s: unknown) => sockets.add(s);
    server.on('connection', onConnection);
    try {
      for (let i = 0; i < 3; i += 1)
        expect((await safeRequest(`${base}/`, open, { keepAlive: true })).body.toString()).toBe('hello');
      expect(sockets.size).toBe(1);
      // The pooled loopback socket is not lent to a policy that refuses loopback.
      await expect(safeRequest(`${base}/`, closed, { keepAlive: true })).rejects.toThrow(/not allowed/);
      // The server resets the idle socket: the next request goes out on a new connection (found dead in the pool,
      // or, when the reset races the request, sent once more).
      for (const s of sockets) (s as import('node:net').Socket).resetAndDestroy();
      expect((await safeRequest(`${base}/`, open, { keepAlive: true })).status).toBe(200);
      expect(sockets.size).toBe(2);
    } finally {
      server.off('connection', onConnection);
    }
  });
});
