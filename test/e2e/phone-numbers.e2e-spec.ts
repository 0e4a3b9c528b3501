import { DataSource } from 'typeorm';
import { createTenant } from '../factories/workspace.factory';
import { createAgent, createPhoneNumber, uniqueUsNumber } from '../factories/agent.factory';
import { MISSING } from '../support/ids';
import { useTestApp } from '../setup/suite';

describe('Phone numbers and channel bindings', () => {
  // Twilio credentials make `twilio` numbers registrable; nothing here reaches Twilio (the API URL is a closed port).
  const suite = useTestApp({
    tenants: ['tenant'],
    env: {
      TWILIO_ACCOUNT_SID: 'ACnumbers0123456789',
      TWILIO_AUTH_TOKEN: 'numbers-token',
      TWILIO_API_URL: 'http://127.0.0.1:9',
    },
  });

  describe('numbers', () => {
    it('registers, lists, reads and deletes a number', async () => {
      const number = uniqueUsNumber();
      const res = await suite.tenant.http
        .post('/api/v1/phone-numbers')
        .send({ number, provider: 'twilio', type: 'local', capabilities: { whatsapp_call: true } });
      expect(res.status).toBe(201);
      const n = res.body.data;
      expect(n).toEqual({
        phone_number_uuid: expect.any(String),
        uuid: n.phone_number_uuid,
        number,
        provider: 'twilio',
        status: 'active',
        country_code: 'US',
        type: 'local',
        capabilities: { call: true, sms: true, whatsapp: false, whatsapp_call: true },
        is_external: false,
        source: 'registered',
        monthly_fee: null,
        whatsapp: null,
        channel_settings: {
          voice: { enabled: true, channel_limit: 50, whitelisted_destinations: ['US'] },
          sms: { enabled: true },
          inbound: { enabled: true, channel_limit: 50 },
        },
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect((await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}`)).body.data).toEqual(n);
      const list = await suite.tenant.http.get('/api/v1/phone-numbers');
      expect(list.body.data.items.map((x: any) => x.uuid)).toContain(n.uuid);
      expect(list.body.data.pagination).toMatchObject({ page: 1, per_page: 20 });
      const dup = await suite.tenant.http.post('/api/v1/phone-numbers').send({ number });
      expect(dup.status).toBe(409);
      expect(dup.body.error.code).toBe('CONFLICT');
      const del = await suite.tenant.http.delete(`/api/v1/phone-numbers/${n.uuid}`);
      expect(del.body).toEqual({ success: true, message: 'Deleted', data: null });
      expect((await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}`)).status).toBe(404);
    });

    it('a real number held by one workspace is refused to every other (409 naming nobody); sandbox numbers may repeat', async () => {
      const number = uniqueUsNumber();
      const held = await suite.tenant.http
        .post('/api/v1/phone-numbers')
        .send({ number, provider: 'twilio' })
        .expect(201);
      const other = await createTenant(suite.app);
      for (const provider of ['twilio', 'meta']) {
        const res = await other.http.post('/api/v1/phone-numbers').send({ number, provider });
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({
          message: 'This number is already in use by another workspace',
          error: { code: 'CONFLICT' },
        });
        for (const secret of [suite.tenant.workspaceId, held.body.data.uuid])
          expect(JSON.stringify(res.body)).not.toContain(secret);
      }
      expect((await other.http.get('/api/v1/phone-numbers')).body.data.items).toEqual([]);
      // A sandbox number is the workspace's own test line: another workspace may have the same one.
      await other.http.post('/api/v1/phone-numbers').send({ number, provider: 'sandbox' }).expect(201);
      // Once the holder lets a number go, another workspace may take it.
      const moved = uniqueUsNumber();
      const first = await suite.tenant.http
        .post('/api/v1/phone-numbers')
        .send({ number: moved, provider: 'twilio' })
        .expect(201);
      await suite.tenant.http.delete(`/api/v1/phone-numbers/${first.body.data.uuid}`).expect(200);
      await other.http.post('/api/v1/phone-numbers').send({ number: moved, provider: 'twilio' }).expect(201);
    });

    it.each([
      [{}, 'VALIDATION_ERROR', 'number'],
      [{ number: '4155550123' }, 'INVALID_FORMAT', 'number'],
      [{ number: '+1 415 555 0123' }, 'INVALID_FORMAT', 'number'],
      [{ number: '+1415-555-0123' }, 'INVALID_FORMAT', 'number'],
      [{ number: '+10005550123' }, 'INVALID_FORMAT', 'number'],
      [{ number: '+1415555012345678' }, 'INVALID_FORMAT', 'number'],
      [{ number: '+14155550123', country_code: 'usa' }, 'INVALID_FORMAT', 'country_code'],
      [{ number: '+14155550123', type: 'satellite' }, 'INVALID_FORMAT', 'type'],
      [{ number: '+14155550123', provider: 'Twilio Inc' }, 'INVALID_FORMAT', 'provider'],
      [{ number: '+14155550123', capabilities: { sms: 'yes' } }, 'INVALID_FORMAT', 'capabilities.sms'],
    ])('rejects %j with %s on %s', async (body, code, field) => {
      const res = await suite.tenant.http.post('/api/v1/phone-numbers').send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });
  });

  describe('bindings and snapshots', () => {
    it('binds channels, reflects them at once in both snapshots and the agent, and unbinds', async () => {
      const agent = await createAgent(suite.tenant, { name: 'Front desk' });
      const n = await createPhoneNumber(suite.tenant, { capabilities: { whatsapp: true } });
      const empty = await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}/channels`);
      expect(empty.body.data).toEqual({
        phone_number_uuid: n.uuid,
        number: n.number,
        is_external: false,
        source: 'registered',
        channels: {
          call: {
            capable: true,
            enabled: false,
            channel_limit: 50,
            whitelisted_destinations: ['US'],
            bound: false,
            agent_uuid: null,
            agent_name: null,
          },
          sms: {
            capable: true,
            enabled: false,
            channel_limit: 50,
            whitelisted_destinations: ['US'],
            bound: false,
            agent_uuid: null,
            agent_name: null,
          },
          whatsapp: {
            bound: false,
            agent_uuid: null,
            agent_name: null,
            phone_number_id: null,
            waba_id: null,
          },
          inbound: { enabled: false, channel_limit: 50 },
        },
      });

      const bound = await suite.tenant.http
        .post(`/api/v1/agents/${agent.agent_uuid}/phone-numbers`)
        .send({ phone_number_uuid: n.uuid, channels: ['call', 'sms'] });
      expect(bound.status).toBe(201);
      expect(bound.body.data.phone_numbers).toEqual([
        {
          phone_number_uuid: n.uuid,
          number: n.number,
          provider: n.provider,
          status: 'active',
          country_code: 'US',
          type: null,
          capabilities: { call: true, sms: true, whatsapp: true, whatsapp_call: false },
          channels: ['call', 'sms'],
        },
      ]);
      expect(bound.body.data.channels.map((c: any) => [c.channel, c.number])).toEqual([
        ['call', n.number],
        ['sms', n.number],
      ]);

      const snap = await suite.tenant.http.get(
        `/api/v1/phone-numbers/channels?number=${encodeURIComponent(n.number)}`,
      );
      expect(snap.status).toBe(200);
      expect(snap.body.data.channels.call).toMatchObject({
        bound: true,
        enabled: true,
        agent_uuid: agent.agent_uuid,
        agent_name: 'Front desk',
      });
      expect(snap.body.data.channels.sms).toMatchObject({ bound: true, agent_uuid: agent.agent_uuid });
      expect(snap.body.data.channels.inbound).toEqual({ enabled: true, channel_limit: 50 });
      expect(snap.body.data.channels.whatsapp).toMatchObject({ bound: false, agent_uuid: null });
      expect((await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}/channels`)).body.data).toEqual(
        snap.body.data,
      );

      // Binding the same channel again to the same agent is a no-op.
      const again = await suite.tenant.http
        .post(`/api/v1/agents/${agent.agent_uuid}/phone-numbers`)
        .send({ phone_number_uuid: n.uuid, channels: ['call'] });
      expect(again.status).toBe(201);

      const unbound = await suite.tenant.http.delete(
        `/api/v1/agents/${agent.agent_uuid}/phone-numbers/${n.uuid}`,
      );
      expect(unbound.status).toBe(200);
      expect(unbound.body.data.phone_numbers).toEqual([]);
      const after = await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}/channels`);
      expect(after.body.data.channels.call.bound).toBe(false);
      expect((await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}`)).status).toBe(200);
      expect(
        (await suite.tenant.http.delete(`/api/v1/agents/${agent.agent_uuid}/phone-numbers/${n.uuid}`)).status,
      ).toBe(404);
    });

    it('one agent per number and channel: 409 when taken, all or nothing', async () => {
      const first = await createAgent(suite.tenant);
      const second = await createAgent(suite.tenant);
      const n = await createPhoneNumber(suite.tenant);
      await suite.tenant.http
        .post(`/api/v1/agents/${first.agent_uuid}/phone-numbers`)
        .send({ phone_number_uuid: n.uuid, channels: ['call'] });
      const taken = await suite.tenant.http
        .post(`/api/v1/agents/${second.agent_uuid}/phone-numbers`)
        .send({ phone_number_uuid: n.uuid, channels: ['sms', 'call'] });
      expect(taken.status).toBe(409);
      expect(taken.body.error.code).toBe('CONFLICT');
      const snap = await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}/channels`);
      expect(snap.body.data.channels.sms.bound).toBe(false);
      // Another channel of the same number may go to another agent.
      const sms = await suite.tenant.http
        .post(`/api/v1/agents/${second.agent_uuid}/phone-numbers`)
        .send({ phone_number_uuid: n.uuid, channels: ['sms'] });
      expect(sms.status).toBe(201);
      const incapable = await suite.tenant.http
        .post(`/api/v1/agents/${second.agent_uuid}/phone-numbers`)
        .send({ phone_number_uuid: n.uuid, channels: ['whatsapp_call'] });
      expect(incapable.status).toBe(409);
    });

    it.each([
      [{ channels: ['call'] }, 'VALIDATION_ERROR', 'phone_number_uuid'],
      [{ phone_number_uuid: 'x', channels: ['call'] }, 'INVALID_UUID', 'phone_number_uuid'],
      [{ phone_number_uuid: MISSING, channels: ['call'] }, 'INVALID_FORMAT', 'phone_number_uuid'],
      [{ phone_number_uuid: MISSING }, 'VALIDATION_ERROR', 'channels'],
      [{ phone_number_uuid: MISSING, channels: [] }, 'VALIDATION_ERROR', 'channels'],
      [{ phone_number_uuid: MISSING, channels: ['fax'] }, 'INVALID_FORMAT', 'channels'],
      [{ phone_number_uuid: MISSING, channels: 'call' }, 'INVALID_FORMAT', 'channels'],
    ])('binding rejects %j with %s on %s', async (body, code, field) => {
      const agent = await createAgent(suite.tenant);
      const res = await suite.tenant.http.post(`/api/v1/agents/${agent.agent_uuid}/phone-numbers`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it.each([
      ['', 'VALIDATION_ERROR'],
      ['?number=12345', 'INVALID_FORMAT'],
      ['?number=%2B1%20415%20555%200123', 'INVALID_FORMAT'],
    ])('snapshot by number rejects %s with %s', async (qs, code) => {
      const res = await suite.tenant.http.get(`/api/v1/phone-numbers/channels${qs}`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field: 'number' });
    });

    it('snapshot of an unknown number is 404', async () => {
      expect(
        (await suite.tenant.http.get(`/api/v1/phone-numbers/channels?number=%2B12125550199`)).status,
      ).toBe(404);
      expect((await suite.tenant.http.get(`/api/v1/phone-numbers/${MISSING}/channels`)).status).toBe(404);
      const bad = await suite.tenant.http.get('/api/v1/phone-numbers/nope/channels');
      expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
    });
  });

  describe('WhatsApp and Messenger', () => {
    it('WhatsApp on a real number needs whatsapp.phone_number_id: 422 naming it on POST and on the PATCH that enables it', async () => {
      for (const provider of ['twilio', 'meta']) {
        const number = uniqueUsNumber();
        const refused = await suite.tenant.http
          .post('/api/v1/phone-numbers')
          .send({ number, provider, capabilities: { whatsapp: true } });
        expect(refused.status).toBe(422);
        expect(refused.body.error).toMatchObject({
          code: 'VALIDATION_ERROR',
          field: 'whatsapp.phone_number_id',
        });
        expect(refused.body.message).toContain('whatsapp.phone_number_id');
        // Nothing was stored: the number registers without WhatsApp.
        const plain = await suite.tenant.http.post('/api/v1/phone-numbers').send({ number, provider });
        expect(plain.status).toBe(201);
        expect(plain.body.data).toMatchObject({ capabilities: { whatsapp: false }, whatsapp: null });
        const patch = await suite.tenant.http
          .patch(`/api/v1/phone-numbers/${plain.body.data.uuid}`)
          .send({ whatsapp: { waba_id: '102290129340398' } });
        expect(patch.status).toBe(422);
        expect(patch.body.error).toMatchObject({
          code: 'VALIDATION_ERROR',
          field: 'whatsapp.phone_number_id',
        });
      }
      // A sandbox number needs no Meta id.
      const sandbox = await createPhoneNumber(suite.tenant, { capabilities: { whatsapp: true } });
      expect(sandbox.capabilities.whatsapp).toBe(true);
    });

    it("a real number's WhatsApp channel binds only once its sender (Meta's phone_number_id) is set", async () => {
      const agent = await createAgent(suite.tenant);
      const n = (
        await suite.tenant.http
          .post('/api/v1/phone-numbers')
          .send({ number: uniqueUsNumber(), provider: 'twilio' })
          .expect(201)
      ).body.data;
      // A number stored WhatsApp-capable without a sender (as one registered before the rule above).
      await suite.app
        .get<DataSource>(DataSource)
        .query(
          `UPDATE phone_numbers SET capabilities = capabilities || '{"whatsapp": true}'::jsonb WHERE id = $1`,
          [n.uuid],
        );
      const refused = await suite.tenant.http
        .post(`/api/v1/agents/${agent.agent_uuid}/channels/whatsapp/bind`)
        .send({ phone_number_uuid: n.uuid });
      expect(refused.status).toBe(409);
      expect(refused.body.message).toContain('whatsapp.phone_number_id');
      const bound = await suite.tenant.http
        .post(`/api/v1/agents/${agent.agent_uuid}/phone-numbers`)
        .send({ phone_number_uuid: n.uuid, channels: ['call', 'whatsapp'] });
      expect(bound.status).toBe(409);
      expect(
        (await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}/channels`)).body.data.channels.call
          .bound,
      ).toBe(false);
    });

    it('PATCH whatsapp sets the sender: its ids show in the answer, GET, the list and both channel snapshots', async () => {
      const n = await createPhoneNumber(suite.tenant);
      expect(n.whatsapp).toBeNull();
      const ids = { phone_number_id: `1065${Date.now()}`, waba_id: `1022${Date.now()}` };
      const patched = await suite.tenant.http
        .patch(`/api/v1/phone-numbers/${n.uuid}`)
        .send({ whatsapp: ids })
        .expect(200);
      expect(patched.body.data).toMatchObject({ capabilities: { whatsapp: true }, whatsapp: ids });
      const read = await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}`).expect(200);
      expect(read.body.data).toEqual(patched.body.data);
      const list = await suite.tenant.http.get('/api/v1/phone-numbers?per_page=100').expect(200);
      expect(list.body.data.items.find((x: { uuid: string }) => x.uuid === n.uuid)).toEqual(read.body.data);
      const snap = await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}/channels`).expect(200);
      expect(snap.body.data.channels.whatsapp).toEqual({
        bound: false,
        agent_uuid: null,
        agent_name: null,
        ...ids,
      });
      const byNumber = await suite.tenant.http
        .get(`/api/v1/phone-numbers/channels?number=${encodeURIComponent(n.number)}`)
        .expect(200);
      expect(byNumber.body.data).toEqual(snap.body.data);
      // PATCH changes the keys sent: the account alone keeps Meta's id; null clears the account.
      const waba = await suite.tenant.http
        .patch(`/api/v1/phone-numbers/${n.uuid}`)
        .send({ whatsapp: { waba_id: `2022${Date.now()}` } })
        .expect(200);
      expect(waba.body.data.whatsapp).toEqual({
        phone_number_id: ids.phone_number_id,
        waba_id: expect.any(String),
      });
      expect(waba.body.data.whatsapp.waba_id).not.toBe(ids.waba_id);
      const cleared = await suite.tenant.http
        .patch(`/api/v1/phone-numbers/${n.uuid}`)
        .send({ whatsapp: { waba_id: null } })
        .expect(200);
      expect(cleared.body.data.whatsapp).toEqual({ phone_number_id: ids.phone_number_id, waba_id: null });
    });

    it('WhatsApp bind/unbind: the number stays on the account and can be bound again', async () => {
      const a = await createAgent(suite.tenant, { name: 'WA agent' });
      const b = await createAgent(suite.tenant);
      const n = await createPhoneNumber(suite.tenant, { capabilities: { whatsapp: true } });
      const bind = await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/channels/whatsapp/bind`)
        .send({ phone_number_uuid: n.uuid });
      expect(bind.status).toBe(200);
      expect(bind.body.data.channels).toEqual([
        {
          channel: 'whatsapp',
          phone_number_uuid: n.uuid,
          number: n.number,
          page_id: null,
          page_name: null,
          bound_at: expect.any(String),
        },
      ]);
      const snap = await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}/channels`);
      expect(snap.body.data.channels.whatsapp).toEqual({
        bound: true,
        agent_uuid: a.agent_uuid,
        agent_name: 'WA agent',
        phone_number_id: null,
        waba_id: null,
      });
      const taken = await suite.tenant.http
        .post(`/api/v1/agents/${b.agent_uuid}/channels/whatsapp/bind`)
        .send({ phone_number_uuid: n.uuid });
      expect(taken.status).toBe(409);

      const unbind = await suite.tenant.http.post(`/api/v1/agents/${a.agent_uuid}/channels/whatsapp/unbind`);
      expect(unbind.status).toBe(200);
      expect(unbind.body.data.channels).toEqual([]);
      expect(
        (await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}/channels`)).body.data.channels.whatsapp
          .bound,
      ).toBe(false);
      expect((await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}`)).status).toBe(200);
      const rebind = await suite.tenant.http
        .post(`/api/v1/agents/${b.agent_uuid}/channels/whatsapp/bind`)
        .send({ phone_number_uuid: n.uuid });
      expect(rebind.status).toBe(200);

      const notCapable = await createPhoneNumber(suite.tenant);
      const refused = await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/channels/whatsapp/bind`)
        .send({ phone_number_uuid: notCapable.uuid });
      expect(refused.status).toBe(409);
      const bad = await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/channels/whatsapp/bind`)
        .send({});
      expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'phone_number_uuid' });
    });

    it('Messenger bind/unbind: one agent per page; the page stays and can be bound again', async () => {
      // A page of its own: a page id is bound in one workspace at a time, and the documented example id may be
      // bound by another suite of the run (requests built from the OpenAPI examples).
      const page = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
      const a = await createAgent(suite.tenant);
      const b = await createAgent(suite.tenant);
      const bind = await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/channels/messenger/bind`)
        .send({ page_id: page, page_name: 'Acme' });
      expect(bind.status).toBe(200);
      expect(bind.body.data.channels).toEqual([
        {
          channel: 'messenger',
          phone_number_uuid: null,
          number: null,
          page_id: page,
          page_name: 'Acme',
          bound_at: expect.any(String),
        },
      ]);
      const list = await suite.tenant.http.get(`/api/v1/agents/${a.agent_uuid}/channels`);
      expect(list.body.data).toEqual(bind.body.data.channels);
      const taken = await suite.tenant.http
        .post(`/api/v1/agents/${b.agent_uuid}/channels/messenger/bind`)
        .send({ page_id: page });
      expect(taken.status).toBe(409);
      expect(taken.body.error.code).toBe('CONFLICT');
      const unbind = await suite.tenant.http.post(`/api/v1/agents/${a.agent_uuid}/channels/messenger/unbind`);
      expect(unbind.body.data.channels).toEqual([]);
      const rebind = await suite.tenant.http
        .post(`/api/v1/agents/${b.agent_uuid}/channels/messenger/bind`)
        .send({ page_id: page });
      expect(rebind.status).toBe(200);
      expect(rebind.body.data.channels[0]).toMatchObject({ page_id: page, page_name: 'Acme' });
    });

    it.each([
      [{}, 'VALIDATION_ERROR', 'page_id'],
      [{ page_id: '' }, 'VALIDATION_ERROR', 'page_id'],
      [{ page_id: 12 }, 'INVALID_FORMAT', 'page_id'],
      [{ page_id: 'a b' }, 'INVALID_FORMAT', 'page_id'],
      [{ page_id: '1', page_name: 5 }, 'INVALID_FORMAT', 'page_name'],
    ])('Messenger bind rejects %j with %s on %s', async (body, code, field) => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/channels/messenger/bind`)
        .send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('deleting an agent frees its numbers and pages', async () => {
      const a = await createAgent(suite.tenant);
      const b = await createAgent(suite.tenant);
      const n = await createPhoneNumber(suite.tenant);
      await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/phone-numbers`)
        .send({ phone_number_uuid: n.uuid, channels: ['call'] });
      await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/channels/messenger/bind`)
        .send({ page_id: 'page-free' });
      await suite.tenant.http.delete(`/api/v1/agents/${a.agent_uuid}`);
      expect(
        (await suite.tenant.http.get(`/api/v1/phone-numbers/${n.uuid}/channels`)).body.data.channels.call
          .bound,
      ).toBe(false);
      expect(
        (
          await suite.tenant.http
            .post(`/api/v1/agents/${b.agent_uuid}/channels/messenger/bind`)
            .send({ page_id: 'page-free' })
        ).status,
      ).toBe(200);
    });
  });

  it("another workspace's numbers are invisible", async () => {
    const n = await createPhoneNumber(suite.tenant);
    const other = await createTenant(suite.app);
    const otherAgent = await createAgent(other);
    expect((await other.http.get(`/api/v1/phone-numbers/${n.uuid}`)).status).toBe(404);
    expect((await other.http.get(`/api/v1/phone-numbers/${n.uuid}/channels`)).status).toBe(404);
    expect((await other.http.delete(`/api/v1/phone-numbers/${n.uuid}`)).status).toBe(404);
    expect(
      (await other.http.get(`/api/v1/phone-numbers/channels?number=${encodeURIComponent(n.number)}`)).status,
    ).toBe(404);
    expect((await other.http.get('/api/v1/phone-numbers')).body.data.items).toEqual([]);
    const bind = await other.http
      .post(`/api/v1/agents/${otherAgent.agent_uuid}/phone-numbers`)
      .send({ phone_number_uuid: n.uuid, channels: ['call'] });
    expect(bind.status).toBe(422);
    expect(bind.body.error.field).toBe('phone_number_uuid');
    const wa = await other.http
      .post(`/api/v1/agents/${otherAgent.agent_uuid}/channels/whatsapp/bind`)
      .send({ phone_number_uuid: n.uuid });
    expect(wa.status).toBe(422);
    // The same number may be registered in another workspace.
    expect((await other.http.post('/api/v1/phone-numbers').send({ number: n.number })).status).toBe(201);
  });
});
