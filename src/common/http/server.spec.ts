import * as http from 'node:http';
import { listen } from './server';

function get(port: number, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('HTTP server graceful close', () => {
  it('lets in-flight requests finish and refuses new connections', async () => {
    const server = await listen((_req, res) => setTimeout(() => res.end('done'), 300), {
      port: 0,
      host: '127.0.0.1',
    });
    const inFlight = get(server.port);
    await new Promise((r) => setTimeout(r, 50));
    const closing = server.close(5000);
    await expect(inFlight).resolves.toEqual({ status: 200, body: 'done' });
    await closing;
    await expect(get(server.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('keeps listening while requests are in flight, with readiness at 503', async () => {
    const server = await listen(
      (req, res) => setTimeout(() => res.end(req.url === '/health/ready' ? 'ready' : 'done'), 300),
      { port: 0, host: '127.0.0.1' },
    );
    expect(await get(server.port, '/health/ready')).toEqual({ status: 200, body: 'ready' });
    const inFlight = get(server.port);
    await new Promise((r) => setTimeout(r, 50));
    let closed = false;
    const closing = server.close(5000).then(() => (closed = true));
    expect(await get(server.port, '/health/ready')).toEqual({
      status: 503,
      body: '{"status":"draining","checks":{}}',
    });
    expect(closed).toBe(false);
    await expect(inFlight).resolves.toEqual({ status: 200, body: 'done' });
    await closing;
    await expect(get(server.port, '/health/ready')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('cuts requests still running at the deadline', async () => {
    const server = await listen(() => undefined, { port: 0, host: '127.0.0.1' });
    const stuck = get(server.port);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await server.close(200);
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(stuck).rejects.toMatchObject({ code: 'ECONNRESET' });
  });
});
