import { DataSource } from 'typeorm';
import { sandboxLine } from '../factories/call.factory';
import { createContact, uniquePhone } from '../factories/contact.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { waitingForLock, withTableLocked } from '../support/table-lock';
import { waitFor } from '../support/wait';

/**
 * A listing's refusals name the listing's own keys; a contact sent twice is taken and counted once; contacts are
 * added later by uuid or, as at creation, by phone (matched or created).
 */
describe('outbound listings: field names and repeated contacts', () => {
  // A database of its own: a test holds a table lock there, which no other suite's statement must meet.
  const suite = useTestApp({ database: 'outbound_listings', tenants: ['t'] });
  let t: TestTenant;
  let db: DataSource;
  let line: { agentId: string };
  const nextYear = new Date(Date.now() + 365 * 24 * 3600_000);

  beforeAll(async () => {
    t = suite.t;
    db = suite.app.get<DataSource>(DataSource);
    line = await sandboxLine(t);
  });

  const listing = (body: object) =>
    t.http.post('/api/v1/listings').send({
      name: 'Spring leads',
      campaign_type: 'call',
      agent_uuid: line.agentId,
      contacts: [{ phone_number: uniquePhone() }],
      ...body,
    });

  it('names end_date, not the campaign key beneath, when it is not after start_date; nothing is written', async () => {
    const phone = uniquePhone();
    const res = await listing({
      name: 'Backwards listing',
      contacts: [{ phone_number: phone }],
      start_date: new Date(nextYear.getTime() + 3600_000).toISOString(),
      end_date: nextYear.toISOString(),
    });
    expect(res.status).toBe(422);
    expect(res.body.error.field).toBe('end_date');
    expect(res.body.message).toContain('end_date');
    expect(res.body.message).not.toContain('end_at');
    const left = await db.query(
      `SELECT (SELECT count(*) FROM contacts WHERE workspace_id = $1 AND phone_number = $2)::int AS contacts,
              (SELECT count(*) FROM outbound_pools WHERE workspace_id = $1 AND name = 'Backwards listing')::int AS pools`,
      [t.workspaceId, phone],
    );
    expect(left[0]).toEqual({ contacts: 0, pools: 0 });
  });

  it("names the rule's keys under rule. when the rule given by fields is refused", async () => {
    const res = await listing({ rule: { start_time: '18:00', end_time: '09:00' } });
    expect(res.status).toBe(422);
    expect(res.body.error.field).toBe('rule.end_time');
  });

  it('takes a contact sent twice once: counted once, one member, one contact', async () => {
    const known = await createContact(t, { name: 'Known' });
    const fresh = uniquePhone();
    const res = await listing({
      name: 'Twice listing',
      contacts: [
        { phone_number: fresh, name: 'First' },
        { phone_number: fresh, name: 'Second' },
        { phone_number: known.phone_number },
        { phone_number: known.phone_number, surname: 'Again' },
      ],
    }).expect(201);
    expect(res.body.data).toMatchObject({ contacts_count: 2, contacts_created: 1, contacts_updated: 1 });
    const rows = await db.query(`SELECT name FROM contacts WHERE workspace_id = $1 AND phone_number = $2`, [
      t.workspaceId,
      fresh,
    ]);
    expect(rows).toEqual([{ name: 'First' }]);
  });

  it('adds contacts later by phone (matched or created, as at creation) and by uuid, in one transaction', async () => {
    const made = await listing({
      name: 'Later listing',
      start_date: nextYear.toISOString(),
      auto_start: true,
    }).expect(201);
    const id = made.body.data.uuid as string;
    const known = await createContact(t, { name: 'Known', phone_number: uniquePhone() });
    const byUuid = await createContact(t, { name: 'By uuid', phone_number: uniquePhone() });
    const fresh = uniquePhone();
    const res = await t.http.post(`/api/v1/listings/${id}/contacts`).send({
      contacts: [
        { phone_number: fresh, name: 'Newcomer', email: 'newcomer@example.com' },
        { phone_number: known.phone_number, surname: 'Updated' },
        { phone_number: fresh, name: 'Twice' },
      ],
      contact_uuids: [byUuid.uuid, known.uuid],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      pool_uuid: made.body.data.pool_uuid,
      contacts_added: 3,
      contacts_skipped: 0,
      contact_uuids_not_found: [],
      contacts_created: 1,
      contacts_updated: 1,
      tasks_created: 3,
      running_campaign_uuids: [id],
    });
    const rows = await db.query(
      `SELECT name, surname, email FROM contacts WHERE workspace_id = $1 AND phone_number = ANY($2) ORDER BY name`,
      [t.workspaceId, [fresh, known.phone_number]],
    );
    expect(rows).toEqual([
      { name: 'Known', surname: 'Updated', email: null },
      { name: 'Newcomer', surname: null, email: 'newcomer@example.com' },
    ]);
    const announced = await db.query(
      `SELECT count(*)::int AS n FROM outbox_events
        WHERE workspace_id = $1 AND type = 'contact_created' AND data->'contact'->>'phone_number' = $2`,
      [t.workspaceId, fresh],
    );
    expect(announced[0].n).toBe(1);
    const read = await t.http.get(`/api/v1/listings/${id}`).expect(200);
    expect(read.body.data.contacts_count).toBe(4);
    // Sent again: present members are skipped, found contacts updated, nothing created.
    const again = await t.http
      .post(`/api/v1/listings/${id}/contacts`)
      .send({ contacts: [{ phone_number: fresh }] })
      .expect(200);
    expect(again.body.data).toMatchObject({ contacts_added: 0, contacts_skipped: 1, contacts_created: 0 });
  });

  it('two listings sent at once with one new number make one contact: the second takes it (201, never 500)', async () => {
    const fresh = uniquePhone();
    const send = (name: string) =>
      listing({ name, contacts: [{ phone_number: fresh, name }] }).then((res) => res);
    let first: ReturnType<typeof send> | undefined;
    let second: ReturnType<typeof send> | undefined;
    await withTableLocked(suite.databaseUrl, 'outbound_pools IN EXCLUSIVE MODE', async () => {
      // The first writes the contact, then waits to write its pool: its contact is not committed yet.
      first = send('First at once');
      await waitFor(
        () => waitingForLock(db, 'INSERT INTO%outbound_pools%'),
        30_000,
        'the first listing waiting for its pool',
      );
      // The second read no contact with the number and writes one too: the unique index holds it.
      second = send('Second at once');
      await waitFor(
        () => waitingForLock(db, 'INSERT INTO contacts%'),
        30_000,
        'the second listing waiting on the number',
      );
    });
    const [a, b] = await Promise.all([first!, second!]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data).toMatchObject({ contacts_count: 1, contacts_created: 1, contacts_updated: 0 });
    expect(b.body.data).toMatchObject({ contacts_count: 1, contacts_created: 0, contacts_updated: 1 });
    const contacts = await db.query(
      `SELECT id, name FROM contacts WHERE workspace_id = $1 AND phone_number = $2`,
      [t.workspaceId, fresh],
    );
    expect(contacts).toEqual([{ id: expect.any(String), name: 'Second at once' }]);
    const members = await db.query(
      `SELECT pool_id FROM outbound_pool_members WHERE workspace_id = $1 AND contact_id = $2 ORDER BY pool_id`,
      [t.workspaceId, contacts[0].id],
    );
    expect(members.map((m: { pool_id: string }) => m.pool_id).sort()).toEqual(
      [a.body.data.pool_uuid, b.body.data.pool_uuid].sort(),
    );
  });

  it('refuses a contacts body without contacts, with a bad phone number, or null, writing nothing', async () => {
    const made = await listing({ name: 'Refusing listing' }).expect(201);
    const id = made.body.data.uuid as string;
    const none = await t.http.post(`/api/v1/listings/${id}/contacts`).send({}).expect(422);
    expect(none.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'contacts' });
    const empty = await t.http.post(`/api/v1/listings/${id}/contacts`).send({ contacts: [] }).expect(422);
    expect(empty.body.error).toMatchObject({ field: 'contacts' });
    const fresh = uniquePhone();
    const bad = await t.http
      .post(`/api/v1/listings/${id}/contacts`)
      .send({ contacts: [{ phone_number: fresh }, { phone_number: 'not a phone' }] })
      .expect(422);
    expect(bad.body.error).toMatchObject({ field: 'contacts.1.phone_number' });
    await t.http.post(`/api/v1/listings/${id}/contacts`).send({ contacts: null }).expect(422);
    const left = await db.query(
      `SELECT count(*)::int AS n FROM contacts WHERE workspace_id = $1 AND phone_number = $2`,
      [t.workspaceId, fresh],
    );
    expect(left[0].n).toBe(0);
    const read = await t.http.get(`/api/v1/listings/${id}`).expect(200);
    expect(read.body.data.contacts_count).toBe(1);
  });
});
