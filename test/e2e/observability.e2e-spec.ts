import { getQueueToken } from '@nestjs/bull';
import type { Job, Queue } from 'bull';
import { DataSource } from 'typeorm';
import { QUEUES } from '@/common/queue/queues';
import { createTenant } from '../factories/workspace.factory';
import { ADMIN_KEY, client } from '../setup/test-app';
import { waitFor } from '../support/wait';
import { useTestApp } from '../setup/suite';

/** The value of one sample of a Prometheus text page, or undefined when the series is absent. */
function sample(page: string, series: string): number | undefined {
  const line = page.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('observability: metrics, queue dashboard, job lifecycle logs', () => {
  // Queues of its own (no other suite's worker takes these jobs), and info lines captured.
  const suite = useTestApp({
    env: { REDIS_PREFIX: `${process.env.REDIS_PREFIX}-obs`, LOG_LEVEL: 'info' },
    captureLogs: true,
  });
  let maintenance: Queue;
  const scrape = async () =>
    (await client(suite.app.url, 'ops.example.test', ADMIN_KEY).get('/metrics').expect(200)).text;
  const lines = () => suite.app.logs().map((l) => JSON.parse(l) as Record<string, unknown>);

  beforeAll(() => {
    maintenance = suite.app.get<Queue>(getQueueToken(QUEUES.maintenance));
  });

  it('serves /metrics only with the admin key, in Prometheus text with process metrics', async () => {
    await suite.app.http('ops.example.test').get('/metrics').expect(401);
    await suite.app.http('ops.example.test', 'wrong-key-0123456789').get('/metrics').expect(401);
    const res = await suite.app.internal().get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(res.text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(res.text).toContain('nodejs_eventloop_lag_seconds');
    for (const queue of Object.values(QUEUES))
      expect(sample(res.text, `cap_queue_jobs{queue="${queue}",state="waiting"}`)).toEqual(
        expect.any(Number),
      );
  });

  it('counts requests by route pattern and status', async () => {
    const t = await createTenant(suite.app);
    await t.http.get('/api/v1/me').expect(200);
    await t.http.get('/api/v1/me').expect(200);
    await suite.app.http(t.host).get('/api/v1/me').expect(401);
    await t.http.get(`/api/v1/agents/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`).expect(404);
    const page = await scrape();
    const count = (route: string, status: number) =>
      sample(
        page,
        `cap_http_request_duration_seconds_count{method="GET",route="${route}",status="${status}"}`,
      );
    expect(count('/api/v1/me', 200)).toBeGreaterThanOrEqual(2);
    expect(count('/api/v1/me', 401)).toBeGreaterThanOrEqual(1);
    expect(count('/api/v1/agents/:uuid', 404)).toBeGreaterThanOrEqual(1);
    expect(page).not.toContain('0000-4000-8000');
  });

  it("shows a job's outcome in a scrape and logs its start and end with the job id", async () => {
    const job = await maintenance.add('purge-idempotency-keys', { batchSize: 10 });
    await job.finished();
    const page = await waitFor(async () => {
      const p = await scrape();
      const done = sample(
        p,
        'cap_jobs_total{queue="maintenance",name="purge-idempotency-keys",outcome="completed"}',
      );
      return done && done >= 1 ? p : undefined;
    });
    expect(
      sample(page, 'cap_job_duration_seconds_count{queue="maintenance",name="purge-idempotency-keys"}'),
    ).toBeGreaterThanOrEqual(1);
    const mine = lines().filter((l) => l.jobId === job.id && l.queue === 'maintenance');
    expect(mine.map((l) => l.msg)).toEqual(['job started', 'job finished']);
    expect(mine[1]).toMatchObject({
      level: 30,
      job: 'purge-idempotency-keys',
      attempt: 1,
      durationMs: expect.any(Number),
    });
  });

  it('logs a failed attempt that is retried, then the failure with its reason, and counts both', async () => {
    const job = await maintenance.add(
      'no-such-job',
      { workspaceId: 'ws-observed' },
      { attempts: 2, backoff: { type: 'fixed', delay: 10 } },
    );
    const failed = await waitFor(async () =>
      lines().find((l) => l.jobId === job.id && l.msg === 'job failed'),
    );
    expect(failed).toMatchObject({
      level: 30,
      queue: 'maintenance',
      job: 'no-such-job',
      workspaceId: 'ws-observed',
      attempt: 2,
      reason: 'Missing process handler for job type no-such-job',
    });
    expect(lines().find((l) => l.jobId === job.id && l.msg === 'job failed, will be retried')).toMatchObject({
      attempt: 1,
      workspaceId: 'ws-observed',
    });
    const page = await scrape();
    expect(sample(page, 'cap_jobs_total{queue="maintenance",name="no-such-job",outcome="retried"}')).toBe(1);
    expect(sample(page, 'cap_jobs_total{queue="maintenance",name="no-such-job",outcome="failed"}')).toBe(1);
    expect(sample(page, 'cap_queue_jobs{queue="maintenance",state="failed"}')).toBeGreaterThanOrEqual(1);
  });

  it('logs the runs of a repeatable job at debug, unless a run did work (info) or failed (warn)', async () => {
    const runs = async (name: string, data: object, count: number) => {
      const repeat = { every: 100, jobId: `obs-${name}-${Date.now()}` };
      const seen: string[] = [];
      const done = (job: Job) => {
        if (job.name === name && job.opts.repeat?.key?.includes(repeat.jobId)) seen.push(String(job.id));
      };
      maintenance.on('completed', done).on('failed', done);
      try {
        await maintenance.add(name, data, { repeat });
        await waitFor(async () => seen.length >= count || undefined, 20_000, `${count} runs of ${name}`);
      } finally {
        await maintenance.removeRepeatable(name, repeat);
        maintenance.off('completed', done).off('failed', done);
      }
      return lines().filter((l) => seen.includes(String(l.jobId)));
    };
    // Nothing to purge: the runs log nothing at info.
    expect(await runs('purge-idempotency-keys', { batchSize: 10 }, 3)).toEqual([]);
    // An expired key: the run that purges it says so.
    const t = await createTenant(suite.app);
    const key = `obs-${Date.now()}`;
    await t.http.post('/api/v1/agents').set('Idempotency-Key', key).send({ name: 'Keyed' }).expect(201);
    await suite.app
      .get<DataSource>(DataSource)
      .query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [key]);
    const working = await runs('purge-idempotency-keys', { batchSize: 10 }, 2);
    expect(working.map((l) => [l.msg, l.level])).toContainEqual(['job finished', 30]);
    expect(working.map((l) => l.msg)).not.toContain('job started');
    // A failing run is a warning.
    const failing = await runs('no-such-periodic-job', {}, 1);
    expect(failing[0]).toMatchObject({
      msg: expect.stringMatching(/^job failed/),
      level: 40,
      job: 'no-such-periodic-job',
    });
  });

  it('serves the queue dashboard under /internal/queues behind the admin key (Bearer or a Basic prompt)', async () => {
    const none = await suite.app.http('ops.example.test').get('/internal/queues').expect(401);
    expect(none.headers['www-authenticate']).toMatch(/^Basic realm="queues"/);
    expect(none.body).toMatchObject({ success: false, error: { code: 'MISSING_AUTH_TOKEN' } });
    await suite.app.http('ops.example.test', 'not-the-key-0123456789').get('/internal/queues').expect(401);
    const ui = await suite.app.internal().get('/internal/queues').expect(200);
    expect(ui.text).toContain('<div id="root">');
    const basic = `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString('base64')}`;
    const api = await suite.app
      .http('ops.example.test')
      .get('/internal/queues/api/queues')
      .set('Authorization', basic)
      .expect(200);
    expect(api.body.queues.map((q: { name: string }) => q.name).sort()).toEqual(Object.values(QUEUES).sort());
  });
});

describe('observability without ADMIN_API_KEY', () => {
  const suite = useTestApp({ env: { ADMIN_API_KEY: '' } });

  it('has no /metrics and no queue dashboard', async () => {
    await suite.app.internal().get('/metrics').expect(404);
    await suite.app.internal().get('/internal/queues').expect(404);
  });
});
