import { DataSource } from 'typeorm';
import { sandboxLine } from '../factories/call.factory';
import { createContact, uniquePhone } from '../factories/contact.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';

/** A listing's refusals name the listing's own keys; a contact sent twice is taken and counted once. */
describe('outbound listings: field names and repeated contacts', () => {
  const suite = useTestApp({ tenants: ['t'] });
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
});
