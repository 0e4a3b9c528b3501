import { DataSource } from 'typeorm';
import { sandboxLine } from '../factories/call.factory';
import { createContact, uniquePhone } from '../factories/contact.factory';
import { addMembers, createCampaign, createPool } from '../factories/outbound.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';

/**
 * The reads of a campaign that has run: the pool's member view (order of each pool type, pages, the status filter,
 * the search) and the campaign's `stats`. Task states are written straight in the database, as the dispatcher would
 * leave them, so each member status and count is known; the campaign starts in a year, so nothing is dialled.
 */
describe('outbound reads: member view and campaign stats', () => {
  const suite = useTestApp({ tenants: ['t', 'other'] });
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let db: DataSource;
  let pool: Record<string, any>;
  let campaign: Record<string, any>;
  const contacts: Record<string, any>[] = [];
  const nextYear = new Date(Date.now() + 365 * 24 * 3600_000).toISOString();
  // name, surname, priority, the task's state once the campaign has run, the member status it shows
  const people: [string, string, number, Record<string, unknown>, string][] = [
    ['Ada', 'Lovelace', 2, { status: 'completed', attempts: 1, last_outcome: 'completed' }, 'Completed'],
    ['Alan', 'Turing', 9, { status: 'failed', attempts: 3, last_outcome: 'busy' }, 'Failed'],
    ['Grace', 'Hopper', 5, { status: 'scheduled', attempts: 1, last_outcome: 'no-answer' }, 'Retrying'],
    ['Edsger', 'Dijkstra', 5, { status: 'cancelled', attempts: 0 }, 'Skipped'],
    ['Barbara', 'Liskov', 1, { status: 'failed', attempts: 0, failure_reason: 'blacklisted' }, 'Skipped'],
    ['Donald', 'Knuth', 7, { status: 'scheduled', attempts: 0 }, 'Scheduled'],
    ['Frances', 'Allen', 3, { status: 'expired', attempts: 2, last_outcome: 'busy' }, 'Failed'],
  ];

  const members = async (query: string, tenant = t) => {
    const res = await tenant.http.get(`/api/v1/pools/${pool.uuid}/contacts?${query}`);
    return res;
  };
  const names = (res: { body: any }) =>
    (res.body.data.items as { contact_uuid: string }[]).map(
      (m) => people[contacts.findIndex((c) => c.uuid === m.contact_uuid)][0],
    );

  beforeAll(async () => {
    ({ app, t, other } = suite);
    db = app.get<DataSource>(DataSource);
    const line = await sandboxLine(t);
    pool = await createPool(t, { name: 'Pioneers', type: 'FIFO' });
    for (const [name, surname, priority] of people) {
      const c = await createContact(t, { name, surname, phone_number: uniquePhone() });
      contacts.push(c);
      await addMembers(t, pool.uuid, [c.uuid], priority);
    }
    campaign = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [pool.uuid],
      start_at: nextYear,
    });
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(200);
    for (const [i, [, , , state]] of people.entries()) {
      const keys = Object.keys(state);
      await db.query(
        `UPDATE outbound_tasks SET ${keys.map((k, j) => `${k} = $${j + 3}`).join(', ')}
          WHERE campaign_id = $1 AND contact_id = $2`,
        [campaign.uuid, contacts[i].uuid, ...Object.values(state)],
      );
    }
  });

  it('lists members in the order of the pool type, page by page, with the status of their latest task', async () => {
    const all = await members('per_page=100');
    expect(all.status).toBe(200);
    expect(names(all)).toEqual(people.map((p) => p[0]));
    expect(all.body.data.items.map((m: { status: string }) => m.status)).toEqual(people.map((p) => p[4]));
    const page2 = await members('per_page=3&page=2');
    expect(names(page2)).toEqual(['Edsger', 'Barbara', 'Donald']);
    expect(page2.body.data.pagination).toMatchObject({ page: 2, per_page: 3, total: 7, total_pages: 3 });

    await t.http.put(`/api/v1/pools/${pool.uuid}`).send({ type: 'LIFO' }).expect(200);
    expect(names(await members('per_page=3'))).toEqual(['Frances', 'Donald', 'Barbara']);
    await t.http.put(`/api/v1/pools/${pool.uuid}`).send({ type: 'Parallel' }).expect(200);
    // By priority, then the oldest first among equal priorities (Grace before Edsger).
    expect(names(await members('per_page=100'))).toEqual([
      'Alan',
      'Donald',
      'Grace',
      'Edsger',
      'Frances',
      'Ada',
      'Barbara',
    ]);
    await t.http.put(`/api/v1/pools/${pool.uuid}`).send({ type: 'FIFO' }).expect(200);
  });

  it('filters by member status with exact totals, also across pages and with a search', async () => {
    const expected: Record<string, string[]> = {};
    for (const p of people) (expected[p[4]] ??= []).push(p[0]);
    for (const status of ['Pending', 'Scheduled', 'Retrying', 'Completed', 'Failed', 'Skipped']) {
      const res = await members(`status=${status}&per_page=100`);
      expect(res.status).toBe(200);
      expect({ status, names: names(res) }).toEqual({ status, names: expected[status] ?? [] });
      expect(res.body.data.pagination.total).toBe((expected[status] ?? []).length);
    }
    const second = await members('status=Skipped&per_page=1&page=2');
    expect(names(second)).toEqual(['Barbara']);
    expect(second.body.data.pagination).toMatchObject({ total: 2, total_pages: 2 });
    const both = await members('status=Failed&search=allen');
    expect(names(both)).toEqual(['Frances']);
    expect(both.body.data.pagination.total).toBe(1);
  });

  it('searches name and surname together, email and phone number, and treats LIKE wildcards as text', async () => {
    expect(names(await members('search=grace%20hop'))).toEqual(['Grace']);
    expect(names(await members('search=KNUTH'))).toEqual(['Donald']);
    const phone = contacts[1].phone_number as string;
    const byPhone = await members(`search=${encodeURIComponent(phone.slice(-7))}`);
    expect(names(byPhone)).toEqual(['Alan']);
    expect(byPhone.body.data.pagination.total).toBe(1);
    const none = await members('search=%25');
    expect(none.body.data.items).toEqual([]);
    expect(none.body.data.pagination.total).toBe(0);
  });

  it('reads a member whose contact has a later task in the pool by that later task', async () => {
    // A second campaign on the same pool: Ada's latest task is now its scheduled one.
    const line = await sandboxLine(t);
    const again = await createCampaign(t, { agent_uuid: line.agentId, start_at: nextYear });
    await t.http
      .post(`/api/v1/campaigns/${again.uuid}/pools`)
      .send({ pool_uuids: [pool.uuid] })
      .expect(200);
    await t.http.post(`/api/v1/campaigns/${again.uuid}/start`).expect(200);
    const completed = await members('status=Completed');
    expect(names(completed)).toEqual([]);
    expect(completed.body.data.pagination.total).toBe(0);
    const scheduled = await members('status=Scheduled&per_page=100');
    expect(scheduled.body.data.pagination.total).toBe(7);
    await t.http.post(`/api/v1/campaigns/${again.uuid}/cancel`).expect(200);
    await db.query(`DELETE FROM outbound_tasks WHERE campaign_id = $1`, [again.uuid]);
  });

  it('counts the campaign by status, with attempts and answered calls', async () => {
    const res = await t.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200);
    expect(res.body.data.stats).toEqual({
      tasks: 7,
      scheduled: 2,
      pending: 0,
      queued: 0,
      in_progress: 0,
      completed: 1,
      failed: 2,
      cancelled: 1,
      expired: 1,
      on_hold: 0,
      voicemail: 0,
      answered: 1,
      attempts: 1 + 3 + 1 + 0 + 0 + 0 + 2,
    });
  });

  it("answers 404 for another workspace's pool and campaign, filtered or not", async () => {
    expect((await members('per_page=5', other)).status).toBe(404);
    expect((await members('status=Failed', other)).status).toBe(404);
    await other.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(404);
  });
});
