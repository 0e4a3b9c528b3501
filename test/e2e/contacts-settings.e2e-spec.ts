import { createContact, createField, createStage, createTag } from '../factories/contact.factory';
import { createTenant } from '../factories/workspace.factory';
import { MISSING } from '../support/ids';
import { useTestApp } from '../setup/suite';

describe('contact tags, custom fields and pipeline stages', () => {
  const suite = useTestApp({ tenants: ['t', 'other'] });

  describe('/contacts/tags', () => {
    it('creates, lists (by name, with counts), reads and deletes a tag', async () => {
      const tenant = await createTenant(suite.app);
      const res = await tenant.http
        .post('/api/v1/contacts/tags')
        .send({ name: 'Zeta', description: 'last', color: '#00aa55' });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        name: 'Zeta',
        description: 'last',
        color: '#00AA55',
        is_active: true,
        contacts_count: 0,
      });
      const alpha = await createTag(tenant, { name: 'Alpha' });
      await createContact(tenant, { tag_uuids: [alpha.uuid] });
      const list = await tenant.http.get('/api/v1/contacts/tags');
      expect(list.status).toBe(200);
      expect(list.body.data.items.map((x: any) => [x.name, x.contacts_count])).toEqual([
        ['Alpha', 1],
        ['Zeta', 0],
      ]);
      expect(list.body.data.pagination.total).toBe(2);
      const one = await tenant.http.get(`/api/v1/contacts/tags/${alpha.uuid}`);
      expect(one.body.data).toMatchObject({ uuid: alpha.uuid, contacts_count: 1 });
      const del = await tenant.http.delete(`/api/v1/contacts/tags/${alpha.uuid}`);
      expect(del.body).toEqual({ success: true, message: 'Deleted', data: null });
      const contacts = await tenant.http.get('/api/v1/contacts');
      expect(contacts.body.data.items[0].tags).toEqual([]);
    });

    it('PUT changes only the keys sent and keeps the tag on its contacts', async () => {
      const tag = await createTag(suite.t, { name: 'Keep', description: 'd', color: '#111111' });
      const c = await createContact(suite.t, { tag_uuids: [tag.uuid] });
      const res = await suite.t.http
        .put(`/api/v1/contacts/tags/${tag.uuid}`)
        .send({ color: '#222222', is_active: false });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        name: 'Keep',
        description: 'd',
        color: '#222222',
        is_active: false,
        contacts_count: 1,
      });
      const contact = await suite.t.http.get(`/api/v1/contacts/${c.uuid}`);
      expect(contact.body.data.tags).toEqual([{ uuid: tag.uuid, name: 'Keep', color: '#222222' }]);
      const renamed = await suite.t.http.put(`/api/v1/contacts/tags/${tag.uuid}`).send({ name: 'Kept' });
      expect(renamed.body.data).toMatchObject({ name: 'Kept', color: '#222222', is_active: false });
    });

    it('refuses a duplicate name (409, case-insensitive)', async () => {
      await createTag(suite.t, { name: 'Dup' });
      const res = await suite.t.http.post('/api/v1/contacts/tags').send({ name: 'dup' });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
      await createTag(suite.other, { name: 'Dup' });
    });

    it.each([
      ['post', {}, 'VALIDATION_ERROR', 'name'],
      ['post', { name: '' }, 'VALIDATION_ERROR', 'name'],
      ['post', { name: 'x', color: 'red' }, 'INVALID_FORMAT', 'color'],
      ['post', { name: 'x', color: '#12345' }, 'INVALID_FORMAT', 'color'],
      ['post', { name: 'x', is_active: 'yes' }, 'INVALID_FORMAT', 'is_active'],
      ['post', { name: 7 }, 'INVALID_FORMAT', 'name'],
      ['put', { name: '' }, 'VALIDATION_ERROR', 'name'],
      ['put', { color: '#GGGGGG' }, 'INVALID_FORMAT', 'color'],
      ['put', { is_active: null }, 'INVALID_FORMAT', 'is_active'],
    ] as const)('%s refuses %j', async (method, body, code, field) => {
      const tag = await createTag(suite.t);
      const path = method === 'post' ? '/api/v1/contacts/tags' : `/api/v1/contacts/tags/${tag.uuid}`;
      const res = await suite.t.http[method](path).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it.each(['get', 'put', 'delete'] as const)(
      '%s: 404 across workspaces, 422 for a malformed uuid',
      async (m) => {
        const tag = await createTag(suite.t);
        for (const uuid of [tag.uuid, MISSING]) {
          const res = await suite.other.http[m](`/api/v1/contacts/tags/${uuid}`).send({ name: 'x' });
          expect(res.status).toBe(404);
          expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
        }
        const bad = await suite.t.http[m]('/api/v1/contacts/tags/nope').send({});
        expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
        expect((await suite.t.http.get(`/api/v1/contacts/tags/${tag.uuid}`)).status).toBe(200);
      },
    );

    it('lists only the workspace’s tags', async () => {
      const tag = await createTag(suite.t, { name: 'Mine only' });
      const res = await suite.other.http.get('/api/v1/contacts/tags?per_page=100');
      expect(res.body.data.items.map((x: any) => x.uuid)).not.toContain(tag.uuid);
    });
  });

  describe('/contacts/fields', () => {
    it('creates, lists by key, reads, renames and deletes definitions', async () => {
      const tenant = await createTenant(suite.app);
      const res = await tenant.http
        .post('/api/v1/contacts/fields')
        .send({ key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro'] });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        key: 'plan',
        label: 'Plan',
        type: 'select',
        options: ['free', 'pro'],
      });
      const age = await createField(tenant, {
        key: 'age',
        label: 'Age',
        type: 'number',
        options: ['ignored'],
      });
      expect(age.options).toEqual([]);
      const list = await tenant.http.get('/api/v1/contacts/fields');
      expect(list.body.data.items.map((f: any) => f.key)).toEqual(['age', 'plan']);
      expect((await tenant.http.get(`/api/v1/contacts/fields/${age.uuid}`)).body.data).toEqual(age);

      const c = await createContact(tenant, { custom_fields: { age: 40, plan: 'pro' } });
      const renamed = await tenant.http.put(`/api/v1/contacts/fields/${age.uuid}`).send({ key: 'age_years' });
      expect(renamed.body.data).toMatchObject({ key: 'age_years', label: 'Age', type: 'number' });
      expect((await tenant.http.get(`/api/v1/contacts/${c.uuid}`)).body.data.custom_fields).toEqual({
        age_years: 40,
        plan: 'pro',
      });
      await tenant.http.delete(`/api/v1/contacts/fields/${age.uuid}`).expect(200);
      expect((await tenant.http.get(`/api/v1/contacts/${c.uuid}`)).body.data.custom_fields).toEqual({
        plan: 'pro',
      });
      const unknown = await tenant.http
        .put(`/api/v1/contacts/${c.uuid}`)
        .send({ custom_fields: { age_years: 1 } });
      expect(unknown.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        field: 'custom_fields.age_years',
      });
    });

    it('changes a text field to date only when every stored value is a real calendar day', async () => {
      const tenant = await createTenant(suite.app);
      const f = await createField(tenant, { key: 'since', label: 'Since', type: 'text' });
      await createContact(tenant, { custom_fields: { since: '2024-02-29' } });
      const bad = await createContact(tenant, { custom_fields: { since: '2026-02-30' } });
      const refused = await tenant.http.put(`/api/v1/contacts/fields/${f.uuid}`).send({ type: 'date' });
      expect(refused.status).toBe(409);
      expect(refused.body.message).toMatch(/1 contact holds a value/);
      for (const odd of ['0000-01-01', '2026-13-01', '2026-00-10', '2026-04-31']) {
        await tenant.http
          .put(`/api/v1/contacts/${bad.uuid}`)
          .send({ custom_fields: { since: odd } })
          .expect(200);
        const again = await tenant.http.put(`/api/v1/contacts/fields/${f.uuid}`).send({ type: 'date' });
        expect(again.status).toBe(409);
      }
      await tenant.http
        .put(`/api/v1/contacts/${bad.uuid}`)
        .send({ custom_fields: { since: '2026-04-30' } })
        .expect(200);
      const ok = await tenant.http.put(`/api/v1/contacts/fields/${f.uuid}`).send({ type: 'date' });
      expect(ok.status).toBe(200);
    });

    it('refuses a type change that stored values do not fit (409), allows one they fit', async () => {
      const tenant = await createTenant(suite.app);
      const f = await createField(tenant, { key: 'score', label: 'Score', type: 'text' });
      await createContact(tenant, { custom_fields: { score: 'high' } });
      await createContact(tenant, { custom_fields: { score: 'low' } });
      const res = await tenant.http.put(`/api/v1/contacts/fields/${f.uuid}`).send({ type: 'number' });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
      expect(res.body.message).toBe(
        'Cannot change custom field score to type number: 2 contacts hold values that would not fit; change or clear them first',
      );
      const toSelect = await tenant.http
        .put(`/api/v1/contacts/fields/${f.uuid}`)
        .send({ type: 'select', options: ['high', 'low'] });
      expect(toSelect.status).toBe(200);
      const narrower = await tenant.http.put(`/api/v1/contacts/fields/${f.uuid}`).send({ options: ['high'] });
      expect(narrower.status).toBe(409);
      expect(narrower.body.message).toMatch(/1 contact holds a value/);
      const wider = await tenant.http
        .put(`/api/v1/contacts/fields/${f.uuid}`)
        .send({ options: ['high', 'low', 'mid'] });
      expect(wider.body.data.options).toEqual(['high', 'low', 'mid']);
      const back = await tenant.http.put(`/api/v1/contacts/fields/${f.uuid}`).send({ type: 'text' });
      expect(back.body.data).toMatchObject({ type: 'text', options: [] });
    });

    it('refuses a duplicate key (409)', async () => {
      await createField(suite.t, { key: 'dup_key', label: 'x', type: 'text' });
      const res = await suite.t.http
        .post('/api/v1/contacts/fields')
        .send({ key: 'dup_key', label: 'y', type: 'number' });
      expect(res.status).toBe(409);
      const other1 = await createField(suite.t, { key: 'dup_key_2', label: 'x', type: 'text' });
      const rename = await suite.t.http
        .put(`/api/v1/contacts/fields/${other1.uuid}`)
        .send({ key: 'dup_key' });
      expect(rename.status).toBe(409);
    });

    it.each([
      [{ label: 'x', type: 'text' }, 'VALIDATION_ERROR', 'key'],
      [{ key: 'PlanType', label: 'x', type: 'text' }, 'INVALID_FORMAT', 'key'],
      [{ key: 'plan-type', label: 'x', type: 'text' }, 'INVALID_FORMAT', 'key'],
      [{ key: 'k1', type: 'text' }, 'VALIDATION_ERROR', 'label'],
      [{ key: 'k2', label: 'x' }, 'VALIDATION_ERROR', 'type'],
      [{ key: 'k3', label: 'x', type: 'color' }, 'INVALID_FORMAT', 'type'],
      [{ key: 'k4', label: 'x', type: 'select' }, 'VALIDATION_ERROR', 'options'],
      [{ key: 'k5', label: 'x', type: 'select', options: [] }, 'VALIDATION_ERROR', 'options'],
      [{ key: 'k6', label: 'x', type: 'select', options: 'a' }, 'INVALID_FORMAT', 'options'],
    ])('POST refuses %j', async (body, code, field) => {
      const res = await suite.t.http.post('/api/v1/contacts/fields').send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it.each([
      [{ key: 'Bad Key' }, 'INVALID_FORMAT', 'key'],
      [{ label: '' }, 'VALIDATION_ERROR', 'label'],
      [{ type: 'blob' }, 'INVALID_FORMAT', 'type'],
      [{ type: 'select' }, 'VALIDATION_ERROR', 'options'],
    ])('PUT refuses %j', async (body, code, field) => {
      const f = await createField(suite.t, {
        key: `f_${Math.random().toString(36).slice(2, 8)}`,
        label: 'x',
        type: 'text',
      });
      const res = await suite.t.http.put(`/api/v1/contacts/fields/${f.uuid}`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('checks each field type on contacts', async () => {
      const tenant = await createTenant(suite.app);
      await createField(tenant, { key: 'n', label: 'n', type: 'number' });
      await createField(tenant, { key: 'b', label: 'b', type: 'boolean' });
      await createField(tenant, { key: 'd', label: 'd', type: 'date' });
      await createField(tenant, { key: 's', label: 's', type: 'text' });
      const ok = await createContact(tenant, {
        custom_fields: { n: 1.5, b: false, d: '2026-01-31', s: 'x' },
      });
      expect(ok.custom_fields).toEqual({ n: 1.5, b: false, d: '2026-01-31', s: 'x' });
      for (const [key, value] of [
        ['n', '1'],
        ['b', 'true'],
        ['d', '2026-02-30'],
        ['s', 5],
      ]) {
        const res = await tenant.http
          .post('/api/v1/contacts')
          .send({ name: 'x', custom_fields: { [key]: value } });
        expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: `custom_fields.${key}` });
      }
    });

    it.each(['get', 'put', 'delete'] as const)(
      '%s: 404 across workspaces, 422 for a malformed uuid',
      async (m) => {
        const f = await createField(suite.t, { key: `x_${m}`, label: 'x', type: 'text' });
        for (const uuid of [f.uuid, MISSING]) {
          const res = await suite.other.http[m](`/api/v1/contacts/fields/${uuid}`).send({ label: 'y' });
          expect(res.status).toBe(404);
          expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
        }
        const bad = await suite.t.http[m]('/api/v1/contacts/fields/nope').send({});
        expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
      },
    );

    it('lists only the workspace’s definitions, and values are checked against the own workspace', async () => {
      await createField(suite.t, { key: 'only_mine', label: 'x', type: 'text' });
      const res = await suite.other.http.get('/api/v1/contacts/fields?per_page=100');
      expect(res.body.data.items.map((f: any) => f.key)).not.toContain('only_mine');
      const c = await suite.other.http
        .post('/api/v1/contacts')
        .send({ name: 'x', custom_fields: { only_mine: 'v' } });
      expect(c.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'custom_fields.only_mine' });
    });
  });

  describe('/contacts/pipeline/stages', () => {
    it('creates stages in order (missing order goes last), lists them with counts, changes and deletes', async () => {
      const tenant = await createTenant(suite.app);
      const a = await createStage(tenant, { name: 'Lead' });
      const b = await createStage(tenant, { name: 'Won', color: '#00ff00' });
      const c = await createStage(tenant, { name: 'First', order: 0 });
      expect([a.order, b.order, c.order]).toEqual([0, 1, 0]);
      expect(b.color).toBe('#00FF00');
      await createContact(tenant, { pipeline_stage_uuid: b.uuid });
      const list = await tenant.http.get('/api/v1/contacts/pipeline/stages');
      expect(list.body.data.items.map((s: any) => [s.name, s.contacts_count])).toEqual([
        ['Lead', 0],
        ['First', 0],
        ['Won', 1],
      ]);
      const moved = await tenant.http.put(`/api/v1/contacts/pipeline/stages/${a.uuid}`).send({ order: 5 });
      expect(moved.body.data).toMatchObject({ name: 'Lead', order: 5, color: null });
      expect(
        (await tenant.http.get(`/api/v1/contacts/pipeline/stages/${b.uuid}`)).body.data.contacts_count,
      ).toBe(1);
      await tenant.http.delete(`/api/v1/contacts/pipeline/stages/${b.uuid}`).expect(200);
      const contacts = await tenant.http.get('/api/v1/contacts');
      expect(contacts.body.data.items[0].pipeline_stage_uuid).toBeNull();
    });

    it.each([
      ['post', {}, 'VALIDATION_ERROR', 'name'],
      ['post', { name: 'x', order: -1 }, 'INVALID_FORMAT', 'order'],
      ['post', { name: 'x', order: 1.5 }, 'INVALID_FORMAT', 'order'],
      ['post', { name: 'x', color: 'blue' }, 'INVALID_FORMAT', 'color'],
      ['put', { name: '' }, 'VALIDATION_ERROR', 'name'],
      ['put', { order: 'first' }, 'INVALID_FORMAT', 'order'],
    ] as const)('%s refuses %j', async (method, body, code, field) => {
      const s = await createStage(suite.t);
      const path =
        method === 'post' ? '/api/v1/contacts/pipeline/stages' : `/api/v1/contacts/pipeline/stages/${s.uuid}`;
      const res = await suite.t.http[method](path).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it.each(['get', 'put', 'delete'] as const)(
      '%s: 404 across workspaces, 422 for a malformed uuid',
      async (m) => {
        const s = await createStage(suite.t);
        for (const uuid of [s.uuid, MISSING]) {
          const res = await suite.other.http[m](`/api/v1/contacts/pipeline/stages/${uuid}`).send({
            name: 'y',
          });
          expect(res.status).toBe(404);
          expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
        }
        const bad = await suite.t.http[m]('/api/v1/contacts/pipeline/stages/nope').send({});
        expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
      },
    );

    it('lists only the workspace’s stages', async () => {
      const s = await createStage(suite.t, { name: 'Private stage' });
      const res = await suite.other.http.get('/api/v1/contacts/pipeline/stages?per_page=100');
      expect(res.body.data.items.map((x: any) => x.uuid)).not.toContain(s.uuid);
    });
  });
});
