import * as tls from 'node:tls';
import { createTenant } from '../factories/workspace.factory';
import { client, startTestApp } from '../setup/test-app';

/** A POST whose body is sent in two parts: the request is in flight until `finish` sends the rest. */
function slowPost(port: number, host: string, token: string) {
  const body = JSON.stringify({ name: 'Drained agent' });
  const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false });
  let answer = '';
  socket.on('data', (c: Buffer) => (answer += c.toString()));
  const ended = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  socket.write(
    `POST /api/v1/agents HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 5)}`,
  );
  return { finish: () => socket.write(body.slice(5)), ended };
}

describe('graceful stop', () => {
  it('answers readiness 503 while draining, keeps listening until in-flight requests end, then stops', async () => {
    const app = await startTestApp();
    const t = await createTenant(app);
    const probe = () => client(app.url, 'probe.example').get('/health/ready');
    await probe().expect(200);

    const inFlight = slowPost(app.port, t.host, t.token);
    await new Promise((r) => setTimeout(r, 200));
    let stopped = false;
    const stopping = app.close().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 100));

    const draining = await probe().expect(503);
    expect(draining.body).toEqual({ status: 'draining', checks: {} });
    expect(draining.headers.connection).toBe('close');
    expect(stopped).toBe(false);

    inFlight.finish();
    const answer = await inFlight.ended;
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    await stopping;
    await expect(probe()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
