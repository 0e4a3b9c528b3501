import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import * as tls from 'node:tls';
import { QUEUES } from '@/common/queue/queues';
import { IdempotencyService } from '@/modules/idempotency/idempotency.service';
import { createTenant } from '../factories/workspace.factory';
import { client, startTestApp } from '../setup/test-app';
import { waitFor } from '../support/wait';

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

  it('lets a running job finish before the queues close, and says it waits for it', async () => {
    const app = await startTestApp(
      { REDIS_PREFIX: `${process.env.REDIS_PREFIX}-stop`, LOG_LEVEL: 'info' },
      { captureLogs: true },
    );
    // This app's purge takes 800 ms, long enough to be running when the stop comes.
    const purge = app.get<IdempotencyService>(IdempotencyService);
    purge.purgeExpired = () => new Promise((r) => setTimeout(() => r(0), 800));
    const queue = app.get<Queue>(getQueueToken(QUEUES.maintenance));
    const job = await queue.add('purge-idempotency-keys', {});
    const lines = () => app.logs().map((l) => JSON.parse(l) as Record<string, unknown>);
    await waitFor(async () => lines().find((l) => l.jobId === job.id && l.msg === 'job started'));

    await app.close();
    const mine = lines().filter((l) => l.jobId === job.id || l.msg === 'waiting for running jobs to finish');
    expect(mine.map((l) => l.msg)).toEqual([
      'job started',
      'waiting for running jobs to finish',
      'job finished',
    ]);
    // Repeatable sweeps (the outbound dispatcher, flow wake-ups) may be running beside it.
    expect(mine[1].running).toBeGreaterThanOrEqual(1);
    expect(mine[2]).toMatchObject({ durationMs: expect.any(Number) });
    expect(mine[2].durationMs).toBeGreaterThanOrEqual(700);
  });
});
