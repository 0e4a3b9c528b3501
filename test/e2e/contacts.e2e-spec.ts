import {
  createContact,
  createField,
  createStage,
  createTag,
  uniquePhone,
} from '../factories/contact.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { MISSING } from '../support/ids';
import { useTestApp } from '../setup/suite';

describe('contacts', () => {
  const suite = useTestApp({ tenants: ['t', 'other'] });

  describe('POST /contacts (one)', () => {
    it('creates a contact with every field and answers the whole contact', async () => {
      const tag = await createTag(suite.t, { name: 'VIP' });
      const stage = await createStage(suite.t, { name: 'Qualified' });
      await createField(suite.t, { key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro'] });
      const phone = uniquePhone();
      const res = await suite.t.http.post('/api/v1/contacts').send({
        name: 'Ada',
        surname: 'Lovelace',
        email: 'ada@example.com',
        phone_number: phone,
        number_type: 'mobile',
        country_code: 'GB',
        timezone: 'Europe/London',
        primary_language: 'en',
        preferred_contact_channel: 'whatsapp',
        preferred_contact_time: 'mornings',
        custom_fields: { plan: 'pro' },
        tag_uuids: [tag.uuid],
        pipeline_stage_uuid: stage.uuid,
        uuid: MISSING,
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ success: true, message: 'Created' });
      const c = res.body.data;
      expect(c).toMatchObject({
        name: 'Ada',
        surname: 'Lovelace',
        email: 'ada@example.com',
        phone_number: phone,
        number_type: 'mobile',
        country_code: 'GB',
        timezone: 'Europe/London',
        primary_language: 'en',
        preferred_contact_channel: 'whatsapp',
        preferred_contact_time: 'mornings',
        status: 'Active',
        custom_fields: { plan: 'pro' },
        tags: [{ uuid: tag.uuid, name: 'VIP', color: '#FF8800' }],
        pipeline_stage_uuid: stage.uuid,
      });
      expect(c.uuid).not.toBe(MISSING);
      expect(c.pipeline_stage_changed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(c.created_at).toMatch(/Z$/);
    });

    it.each([
      [{ phone_number: '+1' }, 'VALIDATION_ERROR', 'name', { name: undefined }],
      [{ name: '' }, 'VALIDATION_ERROR', 'name', {}],
      [{ phone_number: '+44 7700 900123' }, 'INVALID_FORMAT', 'phone_number', {}],
      [{ phone_number: '07700900123' }, 'INVALID_FORMAT', 'phone_number', {}],
      [{ phone_number: '+99912345678' }, 'INVALID_FORMAT', 'phone_number', {}],
      [{ email: 'not-an-email' }, 'INVALID_FORMAT', 'email', {}],
      [{ timezone: 'Mars/Olympus' }, 'INVALID_FORMAT', 'timezone', {}],
      [{ country_code: 'XX' }, 'INVALID_FORMAT', 'country_code', {}],
      [{ status: 'Sleeping' }, 'INVALID_FORMAT', 'status', {}],
      [{ surname: 5 }, 'INVALID_FORMAT', 'surname', {}],
      [{ surname: 'x'.repeat(201) }, 'INVALID_FORMAT', 'surname', {}],
      [{ number_type: true }, 'INVALID_FORMAT', 'number_type', {}],
      [{ primary_language: 1 }, 'INVALID_FORMAT', 'primary_language', {}],
      [{ preferred_contact_channel: [] }, 'INVALID_FORMAT', 'preferred_contact_channel', {}],
      [{ preferred_contact_time: {} }, 'INVALID_FORMAT', 'preferred_contact_time', {}],
      [{ name: 'x'.repeat(201) }, 'INVALID_FORMAT', 'name', {}],
      [{ custom_fields: 'x' }, 'INVALID_FORMAT', 'custom_fields', {}],
      [{ tag_uuids: ['nope'] }, 'INVALID_UUID', 'tag_uuids', {}],
      [{ tag_uuids: [MISSING] }, 'VALIDATION_ERROR', 'tag_uuids.0', {}],
      [{ tag_uuids: 'nope' }, 'INVALID_FORMAT', 'tag_uuids', {}],
      [{ pipeline_stage_uuid: 'nope' }, 'INVALID_UUID', 'pipeline_stage_uuid', {}],
      [{ pipeline_stage_uuid: MISSING }, 'VALIDATION_ERROR', 'pipeline_stage_uuid', {}],
      [{ custom_fields: { shoe_size: 44 } }, 'VALIDATION_ERROR', 'custom_fields.shoe_size', {}],
      [{ custom_fields: { plan: 'gold' } }, 'INVALID_FORMAT', 'custom_fields.plan', {}],
    ])('refuses %j with %s on %s', async (body, code, field, override) => {
      const res = await suite.t.http.post('/api/v1/contacts').send({ name: 'Ada', ...body, ...override });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, error: { code, field } });
    });

    it('refuses a second contact with the same phone number (409), also in another case of input', async () => {
      const phone = uniquePhone();
      await createContact(suite.t, { phone_number: phone });
      const res = await suite.t.http.post('/api/v1/contacts').send({ name: 'Twin', phone_number: phone });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', field: 'phone_number' });
    });

    it('lets exactly one of concurrent creates with one phone number win', async () => {
      const phone = uniquePhone();
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          suite.t.http.post('/api/v1/contacts').send(
            i % 2
              ? { name: 'Racer', phone_number: phone }
              : {
                  contacts: [{ name: 'Other' }, { name: 'Racer', phone_number: phone }],
                },
          ),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      // Batches (even indexes) name the item, single creates the field, whether refused by the check or the index.
      results.forEach((r, i) => {
        if (r.status === 409)
          expect(r.body.error).toMatchObject({
            code: 'CONFLICT',
            field: i % 2 ? 'phone_number' : 'contacts.1.phone_number',
          });
      });
    });

    it('lets another workspace use the same phone number', async () => {
      const phone = uniquePhone();
      await createContact(suite.t, { phone_number: phone });
      await createContact(suite.other, { phone_number: phone });
    });

    it('answers 400 for a body that is not an object', async () => {
      const res = await suite.t.http
        .post('/api/v1/contacts')
        .set('Content-Type', 'application/json')
        .send('[1]');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
    });
  });

  describe('POST /contacts (batch)', () => {
    it('creates many in order', async () => {
      const res = await suite.t.http.post('/api/v1/contacts').send({
        contacts: [
          { name: 'One', phone_number: uniquePhone() },
          { name: 'Two', email: 'two@example.com' },
          { name: 'Three', status: 'Inactive' },
        ],
      });
      expect(res.status).toBe(201);
      expect(res.body.message).toBe('3 contacts created');
      expect(res.body.data.map((c: any) => c.name)).toEqual(['One', 'Two', 'Three']);
      expect(res.body.data[2].status).toBe('Inactive');
    });

    it('creates 1000 at once', async () => {
      const contacts = Array.from({ length: 1000 }, (_, i) => ({
        name: `Bulk ${i}`,
        phone_number: `+4475${String(10_000_000 + i).padStart(8, '0')}`,
      }));
      const res = await suite.other.http.post('/api/v1/contacts').send({ contacts });
      expect(res.status).toBe(201);
      expect(res.body.data).toHaveLength(1000);
      const list = await suite.other.http.get('/api/v1/contacts?search=Bulk&per_page=1');
      expect(list.body.data.pagination.total).toBe(1000);
    });

    it.each([
      [{ contacts: [] }, 'VALIDATION_ERROR', 'contacts'],
      [{ contacts: 'x' }, 'INVALID_FORMAT', 'contacts'],
      [{ contacts: Array.from({ length: 1001 }, () => ({ name: 'x' })) }, 'INVALID_FORMAT', 'contacts'],
      [
        { contacts: [{ name: 'ok' }, { name: 'ok' }, { name: 'bad', phone_number: '12' }] },
        'INVALID_FORMAT',
        'contacts.2.phone_number',
      ],
      [{ contacts: [{ name: 'ok' }, { surname: 'no name' }] }, 'VALIDATION_ERROR', 'contacts.1.name'],
      [
        { contacts: [{ name: 'ok' }, { name: 'x', custom_fields: { nope: 1 } }] },
        'VALIDATION_ERROR',
        'contacts.1.custom_fields.nope',
      ],
      [{ contacts: [{ name: 'ok', tag_uuids: [MISSING] }] }, 'VALIDATION_ERROR', 'contacts.0.tag_uuids.0'],
      [{ contacts: [{ name: 'ok' }, 7] }, 'INVALID_FORMAT', 'contacts.1'],
      [{ contacts: null }, 'VALIDATION_ERROR', 'contacts'],
    ])('refuses %# with %s on %s and writes nothing', async (body, code, field) => {
      const before = (await suite.t.http.get('/api/v1/contacts?per_page=1')).body.data.pagination.total;
      const res = await suite.t.http.post('/api/v1/contacts').send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
      const after = (await suite.t.http.get('/api/v1/contacts?per_page=1')).body.data.pagination.total;
      expect(after).toBe(before);
    });

    it('refuses a phone number taken in the workspace or repeated in the batch (409) and writes nothing', async () => {
      const taken = uniquePhone();
      await createContact(suite.t, { phone_number: taken });
      const before = (await suite.t.http.get('/api/v1/contacts?per_page=1')).body.data.pagination.total;
      const fresh = uniquePhone();
      let res = await suite.t.http.post('/api/v1/contacts').send({
        contacts: [
          { name: 'a', phone_number: fresh },
          { name: 'b', phone_number: taken },
        ],
      });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', field: 'contacts.1.phone_number' });
      res = await suite.t.http.post('/api/v1/contacts').send({
        contacts: [{ name: 'a', phone_number: fresh }, { name: 'b' }, { name: 'c', phone_number: fresh }],
      });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', field: 'contacts.2.phone_number' });
      const after = (await suite.t.http.get('/api/v1/contacts?per_page=1')).body.data.pagination.total;
      expect(after).toBe(before);
    });
  });

  describe('GET /contacts', () => {
    let tenant: TestTenant;
    let vip: Record<string, any>;
    let stage: Record<string, any>;

    beforeAll(async () => {
      tenant = await createTenant(suite.app);
      vip = await createTag(tenant, { name: 'VIP' });
      stage = await createStage(tenant, { name: 'Won' });
      await createContact(tenant, { name: 'Alice', surname: 'Smith', email: 'alice@acme.test' });
      await createContact(tenant, { name: 'Bob', status: 'Inactive', tag_uuids: [vip.uuid] });
      await createContact(tenant, {
        name: 'Carol',
        phone_number: '+14155552671',
        pipeline_stage_uuid: stage.uuid,
      });
    });

    it('lists newest first with pagination', async () => {
      const res = await tenant.http.get('/api/v1/contacts?per_page=2');
      expect(res.status).toBe(200);
      expect(res.body.data.pagination).toEqual({ page: 1, per_page: 2, total: 3, total_pages: 2 });
      expect(res.body.data.items.map((c: any) => c.name)).toEqual(['Carol', 'Bob']);
    });

    it.each([
      ['search=smith', ['Alice']],
      ['search=ACME', ['Alice']],
      ['search=4155552', ['Carol']],
      ['search=%25', []],
      ['status=Inactive', ['Bob']],
    ])('filters with %s', async (query, names) => {
      const res = await tenant.http.get(`/api/v1/contacts?${query}`);
      expect(res.body.data.items.map((c: any) => c.name)).toEqual(names);
    });

    it('filters by tag and by stage', async () => {
      const byTag = await tenant.http.get(`/api/v1/contacts?tag_uuid=${vip.uuid}`);
      expect(byTag.body.data.items.map((c: any) => c.name)).toEqual(['Bob']);
      const byStage = await tenant.http.get(`/api/v1/contacts?stage_uuid=${stage.uuid}`);
      expect(byStage.body.data.items.map((c: any) => c.name)).toEqual(['Carol']);
    });

    it.each([
      ['status=Asleep', 'INVALID_FORMAT', 'status'],
      ['tag_uuid=x', 'INVALID_UUID', 'tag_uuid'],
      ['stage_uuid=x', 'INVALID_UUID', 'stage_uuid'],
      ['page=0', 'INVALID_FORMAT', 'page'],
    ])('refuses %s', async (query, code, field) => {
      const res = await tenant.http.get(`/api/v1/contacts?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('shows no contact of another workspace', async () => {
      const res = await suite.other.http.get('/api/v1/contacts?search=Alice');
      expect(res.body.data.items).toEqual([]);
      const byTag = await suite.other.http.get(`/api/v1/contacts?tag_uuid=${vip.uuid}`);
      expect(byTag.body.data.items).toEqual([]);
    });
  });

  describe('GET, PUT, DELETE /contacts/{uuid}', () => {
    it('reads a contact', async () => {
      const c = await createContact(suite.t, { name: 'Reader' });
      const res = await suite.t.http.get(`/api/v1/contacts/${c.uuid}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(c);
    });

    it('changes only the keys sent, merges custom fields and replaces tags', async () => {
      await createField(suite.t, { key: 'age', label: 'Age', type: 'number' });
      await createField(suite.t, { key: 'vip_since', label: 'VIP since', type: 'date' });
      const [a, b] = [await createTag(suite.t), await createTag(suite.t)];
      const c = await createContact(suite.t, {
        name: 'Put',
        email: 'put@example.com',
        tag_uuids: [a.uuid],
        custom_fields: { age: 30, vip_since: '2024-02-29' },
      });
      const res = await suite.t.http
        .put(`/api/v1/contacts/${c.uuid}`)
        .send({ surname: 'Changed', custom_fields: { age: 31, vip_since: null }, tag_uuids: [b.uuid] });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        name: 'Put',
        surname: 'Changed',
        email: 'put@example.com',
        phone_number: c.phone_number,
        custom_fields: { age: 31 },
        tags: [{ uuid: b.uuid }],
      });
      const cleared = await suite.t.http.put(`/api/v1/contacts/${c.uuid}`).send({ email: null });
      expect(cleared.body.data.email).toBeNull();
      expect(cleared.body.data.tags).toHaveLength(1);
      const untagged = await suite.t.http.put(`/api/v1/contacts/${c.uuid}`).send({ tag_uuids: null });
      expect(untagged.body.data.tags).toEqual([]);
    });

    it('records when a contact moves between pipeline stages', async () => {
      const [s1, s2] = [await createStage(suite.t, { name: 'A' }), await createStage(suite.t, { name: 'B' })];
      const c = await createContact(suite.t, { pipeline_stage_uuid: s1.uuid });
      const same = await suite.t.http
        .put(`/api/v1/contacts/${c.uuid}`)
        .send({ pipeline_stage_uuid: s1.uuid });
      expect(same.body.data.pipeline_stage_changed_at).toBe(c.pipeline_stage_changed_at);
      await new Promise((r) => setTimeout(r, 5));
      const moved = await suite.t.http
        .put(`/api/v1/contacts/${c.uuid}`)
        .send({ pipeline_stage_uuid: s2.uuid });
      expect(moved.body.data.pipeline_stage_uuid).toBe(s2.uuid);
      expect(moved.body.data.pipeline_stage_changed_at > c.pipeline_stage_changed_at).toBe(true);
      const out = await suite.t.http.put(`/api/v1/contacts/${c.uuid}`).send({ pipeline_stage_uuid: null });
      expect(out.body.data.pipeline_stage_uuid).toBeNull();
    });

    it.each([
      [{ name: '' }, 'VALIDATION_ERROR', 'name'],
      [{ name: null }, 'VALIDATION_ERROR', 'name'],
      [{ phone_number: '+1-415-555' }, 'INVALID_FORMAT', 'phone_number'],
      [{ email: 'x@' }, 'INVALID_FORMAT', 'email'],
      [{ timezone: 'Nowhere' }, 'INVALID_FORMAT', 'timezone'],
      [{ status: 'Gone' }, 'INVALID_FORMAT', 'status'],
      [{ custom_fields: { unknown_key: 1 } }, 'VALIDATION_ERROR', 'custom_fields.unknown_key'],
      [{ tag_uuids: [MISSING] }, 'VALIDATION_ERROR', 'tag_uuids.0'],
      [{ pipeline_stage_uuid: MISSING }, 'VALIDATION_ERROR', 'pipeline_stage_uuid'],
    ])('refuses %j', async (body, code, field) => {
      const c = await createContact(suite.t);
      const res = await suite.t.http.put(`/api/v1/contacts/${c.uuid}`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('refuses taking another contact’s phone number (409) but accepts its own', async () => {
      const [a, b] = [await createContact(suite.t), await createContact(suite.t)];
      const res = await suite.t.http.put(`/api/v1/contacts/${b.uuid}`).send({ phone_number: a.phone_number });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', field: 'phone_number' });
      const own = await suite.t.http.put(`/api/v1/contacts/${b.uuid}`).send({ phone_number: b.phone_number });
      expect(own.status).toBe(200);
    });

    it('deletes a contact', async () => {
      const c = await createContact(suite.t);
      const res = await suite.t.http.delete(`/api/v1/contacts/${c.uuid}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: 'Deleted', data: null });
      expect((await suite.t.http.get(`/api/v1/contacts/${c.uuid}`)).status).toBe(404);
    });

    it.each(['get', 'put', 'delete'] as const)(
      '%s answers 422 INVALID_UUID for a malformed uuid',
      async (m) => {
        const res = await suite.t.http[m]('/api/v1/contacts/not-a-uuid').send({});
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
      },
    );

    it.each(['get', 'put', 'delete'] as const)(
      '%s answers 404 for another workspace’s contact, as for none',
      async (m) => {
        const c = await createContact(suite.t);
        for (const uuid of [c.uuid, MISSING]) {
          const res = await suite.other.http[m](`/api/v1/contacts/${uuid}`).send({ name: 'Stolen' });
          expect(res.status).toBe(404);
          expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
        }
        expect((await suite.t.http.get(`/api/v1/contacts/${c.uuid}`)).body.data.name).toBe('Ada');
      },
    );

    it('refuses another workspace’s tag or stage as a body reference', async () => {
      const tag = await createTag(suite.other);
      const stage = await createStage(suite.other);
      let res = await suite.t.http.post('/api/v1/contacts').send({ name: 'x', tag_uuids: [tag.uuid] });
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'tag_uuids.0' });
      res = await suite.t.http.post('/api/v1/contacts').send({ name: 'x', pipeline_stage_uuid: stage.uuid });
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'pipeline_stage_uuid' });
    });
  });
});
