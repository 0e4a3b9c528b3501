import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { loadConfig } from '@/config/app.config';
import { resolveEncryptionKey } from '@/common/crypto/encryption-key';
import { QUEUES } from '@/common/queue/queues';
import { PURGE_CRON } from '@/modules/idempotency/jobs/idempotency-jobs.module';
import { PURGE_EVENTS_CRON } from '@/modules/events/jobs/events-jobs.module';
import { startWorker } from '@/bootstrap';
import { createTenant } from '../factories/workspace.factory';
import { startTestApp, TestApp } from '../setup/test-app';
import { useTestApp } from '../setup/suite';

async function insertKey(db: DataSource, workspaceId: string, key: string, expiresIn: string): Promise<void> {
  await db.query(
    `INSERT INTO idempotency_keys (id, workspace_id, key, request_hash, state, expires_at)
     VALUES ($1, $2, $3, repeat('a', 64), 'completed', now() + $4::interval)`,
    [uuidv7(), workspaceId, key, expiresIn],
  );
}

describe('queues: Bull wiring, the nightly purge, API and worker processes', () => {
  const suite = useTestApp();

  it('schedules the purge of expired idempotency keys as a repeatable job', async () => {
    const queue = suite.app.get<Queue>(getQueueToken(QUEUES.maintenance));
    const repeatable = await queue.getRepeatableJobs();
    expect(repeatable).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'purge-idempotency-keys', cron: PURGE_CRON })]),
    );
  });

  it('purges only expired keys when the job runs, and running it twice is harmless', async () => {
    const tenant = await createTenant(suite.app);
    const db = suite.app.get<DataSource>(DataSource);
    await insertKey(db, tenant.workspaceId, 'old-1', '-25 hours');
    await insertKey(db, tenant.workspaceId, 'old-2', '-1 second');
    await insertKey(db, tenant.workspaceId, 'fresh', '23 hours');
    const queue = suite.app.get<Queue>(getQueueToken(QUEUES.maintenance));

    const job = await queue.add('purge-idempotency-keys', { batchSize: 1 });
    const result = (await job.finished()) as { deleted: number };
    expect(result.deleted).toBeGreaterThanOrEqual(2);
    const left = await db.query('SELECT key FROM idempotency_keys WHERE workspace_id = $1', [
      tenant.workspaceId,
    ]);
    expect(left).toEqual([{ key: 'fresh' }]);

    const again = await queue.add('purge-idempotency-keys', {});
    await again.finished();
    expect(
      await db.query('SELECT key FROM idempotency_keys WHERE workspace_id = $1', [tenant.workspaceId]),
    ).toEqual([{ key: 'fresh' }]);
  });
});

describe('retention of delivered events', () => {
  const suite = useTestApp();
  let app: TestApp;
  beforeAll(() => {
    app = suite.app;
  });

  async function event(
    db: DataSource,
    workspaceId: string,
    dispatchedAgo: string,
    delivery: 'succeeded' | 'pending',
  ) {
    const id = uuidv7();
    await db.query(
      `INSERT INTO outbox_events (id, workspace_id, type, data, dispatched_at, created_at)
       VALUES ($1, $2, 'conversation_update', '{}', now() - $3::interval, now() - $3::interval)`,
      [id, workspaceId, dispatchedAgo],
    );
    await db.query(
      `INSERT INTO webhook_deliveries (id, workspace_id, event_id, event_type, webhook_kind, webhook_id, url, status,
                                       next_attempt_at)
       VALUES ($1, $2, $3, 'conversation_update', 'workspace', $4, 'https://example.com/hook', $5, $6)`,
      [
        uuidv7(),
        workspaceId,
        id,
        uuidv7(),
        delivery,
        delivery === 'pending' ? new Date(Date.now() + 86_400_000) : null,
      ],
    );
    return id;
  }

  it('is scheduled nightly and removes only events past 30 days with nothing pending, with their deliveries', async () => {
    const queue = app.get<Queue>(getQueueToken(QUEUES.maintenance));
    expect(await queue.getRepeatableJobs()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'purge-delivered-events', cron: PURGE_EVENTS_CRON }),
      ]),
    );
    const tenant = await createTenant(app);
    const db = app.get<DataSource>(DataSource);
    const old = await event(db, tenant.workspaceId, '31 days', 'succeeded');
    const oldPending = await event(db, tenant.workspaceId, '31 days', 'pending');
    const recent = await event(db, tenant.workspaceId, '1 day', 'succeeded');

    const job = await queue.add('purge-delivered-events', { batchSize: 1 });
    expect(((await job.finished()) as { deleted: number }).deleted).toBeGreaterThanOrEqual(1);
    const left = await db.query('SELECT id FROM outbox_events WHERE workspace_id = $1 ORDER BY id', [
      tenant.workspaceId,
    ]);
    expect(left.map((r: { id: string }) => r.id).sort()).toEqual([oldPending, recent].sort());
    const deliveries = await db.query('SELECT event_id FROM webhook_deliveries WHERE workspace_id = $1', [
      tenant.workspaceId,
    ]);
    expect(deliveries.map((r: { event_id: string }) => r.event_id)).not.toContain(old);
    expect(deliveries).toHaveLength(2);
  });
});

describe('queues: RUN_WORKERS=false leaves jobs to a worker process', () => {
  it('an API without workers queues the job; a worker process runs it', async () => {
    // A prefix of its own, so that no other suite's workers share these queues.
    const REDIS_PREFIX = `${process.env.REDIS_PREFIX}-solo`;
    const api = await startTestApp({ RUN_WORKERS: 'false', REDIS_PREFIX });
    const queue = api.get<Queue>(getQueueToken(QUEUES.maintenance));
    const job = await queue.add('purge-idempotency-keys', {});
    await new Promise((r) => setTimeout(r, 500));
    expect(await job.getState()).toBe('waiting');

    const config = resolveEncryptionKey(loadConfig({ ...process.env, REDIS_PREFIX }));
    const worker = await startWorker(config);
    try {
      await expect(job.finished()).resolves.toEqual({ deleted: expect.any(Number) });
    } finally {
      await worker.close();
      await api.close();
    }
  });
});
