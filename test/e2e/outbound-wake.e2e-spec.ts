import type { Queue } from 'bull';
import { getQueueToken } from '@nestjs/bull';
import { DataSource } from 'typeorm';
import { QUEUES } from '@/common/queue/queues';
import { DISPATCH_EVERY_MS } from '@/modules/outbound/engine/jobs/outbound-jobs.module';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { createContact } from '../factories/contact.factory';
import { addMembers, createCampaign, createPool, tasksOf } from '../factories/outbound.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { waitFor } from '../support/wait';

jest.setTimeout(60_000);

/**
 * The dispatcher wakes on the outbox's NOTIFY, also after its LISTEN connection was lost. The periodic pass is
 * removed in this suite, so only a wake-up can dial.
 */
describe('outbound dispatcher: woken on commits after its LISTEN connection drops', () => {
  const suite = useTestApp({
    database: 'outbound_wake',
    env: { REDIS_PREFIX: `${process.env.REDIS_PREFIX}-outbound-wake`, SANDBOX_ANSWER_DELAY_MS: '100' },
    tenants: ['t'],
  });
  let app: TestApp;
  let t: TestTenant;
  let db: DataSource;

  const listeners = async (): Promise<number[]> =>
    (
      await db.query(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`,
      )
    ).map((r: { pid: number }) => r.pid);

  beforeAll(async () => {
    ({ app, t } = suite);
    db = app.get<DataSource>(DataSource);
    await app
      .get<Queue>(getQueueToken(QUEUES.outbound))
      .removeRepeatable('dispatch', { every: DISPATCH_EVERY_MS, jobId: 'dispatch' });
  });

  it('a commit after the connection was terminated wakes the dispatcher', async () => {
    const line = await sandboxLine(t, { settings: { voice: { silence_timeout_seconds: 1 } } });
    const contact = await createContact(t, { phone_number: sandboxDestination('7801') });
    const pool = await createPool(t, { type: 'FIFO' });
    await addMembers(t, pool.uuid, [contact.uuid]);
    const campaign = await createCampaign(t, { agent_uuid: line.agentId, pool_uuids: [pool.uuid] });

    // The outbox listener and the dispatcher's wake-up each hold one.
    const before = await listeners();
    expect(before).toHaveLength(2);
    await db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND query ILIKE 'LISTEN%'`,
    );
    await waitFor(
      async () => {
        const now = await listeners();
        return now.length === 2 && now.every((pid) => !before.includes(pid)) ? true : undefined;
      },
      10_000,
      'both LISTEN connections back',
    );

    // A commit after the reconnection wakes the dispatcher: a wake-up pass runs (the periodic one is removed).
    const queue = app.get<Queue>(getQueueToken(QUEUES.outbound));
    const woken: string[] = [];
    queue.on('completed', (job) => {
      if (String(job.id).startsWith('wake:')) woken.push(String(job.id));
    });
    await new Promise((r) => setTimeout(r, 600)); // past the reconnection's own catch-up slice
    woken.length = 0;
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(200);
    await waitFor(async () => (woken.length ? true : undefined), 5_000, 'a wake-up pass after the commit');
    expect((await tasksOf(t, `campaign_uuid=${campaign.uuid}`))[0].contact_uuid).toBe(contact.uuid);
  });
});
