import { DataSource } from 'typeorm';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { MISSING } from '../support/ids';
import { useTestApp } from '../setup/suite';

describe('blacklist: routes, and every outbound path refusing a listed number', () => {
  const suite = useTestApp({ env: { SANDBOX_ANSWER_DELAY_MS: '100' }, tenants: ['t', 'other'] });
  let db: DataSource;
  let line: { agentId: string; numberId: string; number: string };

  beforeAll(async () => {
    db = suite.app.get<DataSource>(DataSource);
    line = await sandboxLine(suite.t);
    // The same sandbox number serves SMS and WhatsApp for the agent.
    await db.query(
      `UPDATE phone_numbers SET capabilities = capabilities || '{"sms": true, "whatsapp": true}' WHERE id = $1`,
      [line.numberId],
    );
    await suite.t.http
      .post(`/api/v1/agents/${line.agentId}/phone-numbers`)
      .send({ phone_number_uuid: line.numberId, channels: ['sms', 'whatsapp'] })
      .expect(201);
  });

  const refusals = async (to: string) => {
    const call = await suite.t.http.post('/api/v1/call').send({ agent_uuid: line.agentId, to });
    const sms = await suite.t.http
      .post('/api/v1/sms/send')
      .send({ agent_uuid: line.agentId, to, body: 'Hi' });
    const whatsapp = await suite.t.http
      .post('/api/v1/whatsapp/messages')
      .send({ agent_uuid: line.agentId, to, text: 'Hi' });
    return [call, sms, whatsapp].map((r) => `${r.status} ${r.body.error?.code ?? ''}`.trim());
  };

  it('a listed number refuses calls, SMS and WhatsApp; an expired entry does not', async () => {
    const to = sandboxDestination();
    const added = await suite.t.http
      .post('/api/v1/blacklist')
      .send({ phone_number: to, reason: 'Asked not to be contacted', is_permanent: true })
      .expect(201);
    expect(added.body.data).toMatchObject({
      type: 'Phone',
      source: 'manual',
      is_permanent: true,
      phone_number: to,
      in_force: true,
    });
    expect(await refusals(to)).toEqual(['409 BLACKLISTED', '409 BLACKLISTED', '409 BLACKLISTED']);
    // Expired: listed with its expires_at, blocks nothing (WhatsApp then meets the window rule instead).
    await db.query(
      `UPDATE blacklist_entries SET is_permanent = false, expires_at = now() - interval '1 minute' WHERE workspace_id = $1 AND id = $2`,
      [suite.t.workspaceId, added.body.data.uuid],
    );
    const listed = await suite.t.http.get('/api/v1/blacklist?type=Phone').expect(200);
    const entry = listed.body.data.items.find((e: { uuid: string }) => e.uuid === added.body.data.uuid);
    expect(entry).toMatchObject({ in_force: false, is_permanent: false });
    expect(entry.expires_at).not.toBeNull();
    expect(await refusals(to)).toEqual(['201', '201', '409 OUTSIDE_MESSAGING_WINDOW']);
  });

  it('blacklists a contact by type, answers the contact with its entry, and removes it', async () => {
    const phone = sandboxDestination();
    const contact = await suite.t.http
      .post('/api/v1/contacts')
      .send({ name: 'Ada', phone_number: phone, email: 'Ada@Example.com' })
      .expect(201);
    const id = contact.body.data.uuid;
    const short = await suite.t.http
      .post(`/api/v1/contacts/${id}/blacklist`)
      .send({ reason: 'no', type: 'Both' });
    expect(short.status).toBe(422);
    expect(short.body.error.field).toBe('reason');
    const temporary = await suite.t.http
      .post(`/api/v1/contacts/${id}/blacklist`)
      .send({ reason: 'Complaint', is_permanent: false });
    expect(temporary.status).toBe(422);
    expect(temporary.body.error.field).toBe('expires_at');
    const past = await suite.t.http
      .post(`/api/v1/contacts/${id}/blacklist`)
      .send({ reason: 'Complaint', is_permanent: false, expires_at: '2020-01-01T00:00:00.000Z' });
    expect(past.status).toBe(422);
    const res = await suite.t.http
      .post(`/api/v1/contacts/${id}/blacklist`)
      .send({
        reason: 'Complaint',
        type: 'Both',
        is_permanent: false,
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      })
      .expect(201);
    expect(res.body.message).toBe('Contact added to blacklist');
    expect(res.body.data).toMatchObject({
      uuid: id,
      name: 'Ada',
      blacklist: {
        type: 'Both',
        reason: 'Complaint',
        source: 'manual',
        is_permanent: false,
        phone_number: phone,
        email: 'Ada@Example.com',
      },
    });
    expect(res.body.data.blacklist.blacklisted_at).toEqual(expect.any(String));
    expect(await refusals(phone)).toEqual(['409 BLACKLISTED', '409 BLACKLISTED', '409 BLACKLISTED']);
    const search = await suite.t.http
      .get('/api/v1/blacklist?search=example.com&type=Both&source=manual')
      .expect(200);
    expect(search.body.data.items.map((e: { contact_uuid: string }) => e.contact_uuid)).toEqual([id]);
    // Another workspace neither sees nor changes it.
    await suite.other.http.post(`/api/v1/contacts/${id}/blacklist`).send({ reason: 'Complaint' }).expect(404);
    await suite.other.http.delete(`/api/v1/contacts/${id}/blacklist`).expect(404);
    await suite.other.http.delete(`/api/v1/blacklist/${res.body.data.blacklist.uuid}`).expect(404);
    expect((await suite.other.http.get('/api/v1/blacklist').expect(200)).body.data.items).toEqual([]);
    await suite.t.http.delete(`/api/v1/contacts/${id}/blacklist`).expect(200);
    await suite.t.http.delete(`/api/v1/contacts/${id}/blacklist`).expect(404);
    expect((await refusals(phone))[1]).toBe('201');
  });

  it("a contact's opt-out by message survives its manual entries: replacing or removing them leaves it", async () => {
    const to = sandboxDestination();
    const contact = (
      await suite.t.http
        .post('/api/v1/contacts')
        .send({ name: 'Opted', phone_number: to, email: 'opted@example.test' })
    ).body.data;
    await suite.t.http
      .post('/api/v1/sms/simulate-inbound')
      .send({ to: line.number, from: to, body: 'STOP' })
      .expect(201);
    const optOuts = async () =>
      (
        await suite.t.http
          .get(`/api/v1/blacklist?source=opt_out&search=${encodeURIComponent(to)}`)
          .expect(200)
      ).body.data.items as { uuid: string }[];
    expect(await optOuts()).toHaveLength(1);
    // A manual entry for the contact (its email), then another replacing it: the opt-out stays through both.
    await suite.t.http
      .post(`/api/v1/contacts/${contact.uuid}/blacklist`)
      .send({ type: 'Email', reason: 'Asked by email' })
      .expect(201);
    await suite.t.http
      .post(`/api/v1/contacts/${contact.uuid}/blacklist`)
      .send({ type: 'Both', reason: 'Asked again' })
      .expect(201);
    expect(await optOuts()).toHaveLength(1);
    const manual = await suite.t.http
      .get(`/api/v1/blacklist?source=manual&search=opted@example.test`)
      .expect(200);
    expect(manual.body.data.items).toHaveLength(1);
    // Removing the contact's entry removes the manual one; the opt-out is the customer's to lift.
    await suite.t.http.delete(`/api/v1/contacts/${contact.uuid}/blacklist`).expect(200);
    const left = await suite.t.http.delete(`/api/v1/contacts/${contact.uuid}/blacklist`).expect(409);
    expect(left.body.message).toBe('The contact opted out by message: only a START from them lifts it');
    expect(await optOuts()).toHaveLength(1);
    expect((await refusals(to))[1]).toBe('409 BLACKLISTED');
    await suite.t.http
      .post('/api/v1/sms/simulate-inbound')
      .send({ to: line.number, from: to, body: 'START' })
      .expect(201);
    expect(await optOuts()).toHaveLength(0);
    await suite.t.http.delete(`/api/v1/contacts/${contact.uuid}/blacklist`).expect(404);
  });

  it('POST /blacklist needs a number or an email; DELETE of an unknown entry is 404', async () => {
    const none = await suite.t.http.post('/api/v1/blacklist').send({ reason: 'Spam reports' });
    expect(none.status).toBe(422);
    const email = await suite.t.http
      .post('/api/v1/blacklist')
      .send({ email: 'spam@example.com', reason: 'Spam reports' })
      .expect(201);
    expect(email.body.data.type).toBe('Email');
    await suite.t.http.delete(`/api/v1/blacklist/${email.body.data.uuid}`).expect(200);
    await suite.t.http.delete(`/api/v1/blacklist/${MISSING}`).expect(404);
  });
});
