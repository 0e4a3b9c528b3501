import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { loadConfig } from '@/config/app.config';
import { resolveEncryptionKey } from '@/common/crypto/encryption-key';
import { QUEUES } from '@/common/queue/queues';
import { PURGE_CRON } from '@/modules/idempotency/jobs/idempotency-jobs.module';
import { startWorker } from '@/bootstrap';
import { createTenant } from '../factories/workspace.factory';
import { startTestApp, TestApp } from '../setup/test-app';

async function insertKey(db: DataSource, workspaceId: string, key: string, expiresIn: string): Promise<void> {
  await db.query(
    `INSERT INTO idempotency_keys (id, workspace_id, key, request_hash, state, expires_at)
     VALUES ($1, $2, $3, repeat('a', 64), 'completed', now() + $4::interval)`,
    [uuidv7(), workspaceId, key, expiresIn],
  );
}

describe('queues: Bull wiring, the nightly purge, API and worker processes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('schedules the purge of expired idempotency keys as a repeatable job', async () => {
    const queue = app.get<Queue>(getQueueToken(QUEUES.maintenance));
    const repeatable = await queue.getRepeatableJobs();
    expect(repeatable).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'purge-idempotency-keys', cron: PURGE_CRON })]),
    );
  });

  it('purges only expired keys when the job runs, and running it twice is harmless', async () => {
    const tenant = await createTenant(app);
    const db = app.get<DataSource>(DataSource);
    await insertKey(db, tenant.workspaceId, 'old-1', '-25 hours');
    await insertKey(db, tenant.workspaceId, 'old-2', '-1 second');
    await insertKey(db, tenant.workspaceId, 'fresh', '23 hours');
    const queue = app.get<Queue>(getQueueToken(QUEUES.maintenance));

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
