import { AppException } from '@/common/errors/app.exception';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { createField, createTag, uniquePhone } from '../factories/contact.factory';
import { client } from '../setup/test-app';
import { MISSING } from '../support/ids';
import { useTestApp } from '../setup/suite';

/** The service other modules (conversations) use: the same rules as the API. */
describe('ContactsService for other modules', () => {
  const suite = useTestApp({ tenants: ['t', 'other'] });
  let contacts: ContactsService;

  const failure = async (p: Promise<unknown>): Promise<AppException> => {
    try {
      await p;
    } catch (err) {
      return err as AppException;
    }
    throw new Error('expected a failure');
  };

  beforeAll(async () => {
    contacts = suite.app.get<ContactsService>(ContactsService);
    await createField(suite.t, { key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro'] });
  });

  it('creates, finds by phone, reads and updates a contact', async () => {
    const phone = uniquePhone();
    const created = await contacts.create(suite.t.workspaceId, { phone_number: phone, name: 'Caller' });
    expect((await contacts.findByPhone(suite.t.workspaceId, phone))?.id).toBe(created.id);
    expect(await contacts.findByPhone(suite.other.workspaceId, phone)).toBeNull();
    expect((await contacts.get(suite.t.workspaceId, created.id)).name).toBe('Caller');
    const tag = await createTag(suite.t);
    const updated = await contacts.update(suite.t.workspaceId, created.id, {
      surname: 'Known',
      custom_fields: { plan: 'pro' },
      tag_uuids: [tag.uuid],
    });
    expect(contacts.toResponse(updated)).toMatchObject({
      name: 'Caller',
      surname: 'Known',
      phone_number: phone,
      custom_fields: { plan: 'pro' },
      tags: [{ uuid: tag.uuid }],
    });
    const viaApi = await client(suite.app.url, suite.t.host, suite.t.token).get(
      `/api/v1/contacts/${created.id}`,
    );
    expect(viaApi.body.data.custom_fields).toEqual({ plan: 'pro' });
  });

  it('creates a contact known only by its phone number when asked to', async () => {
    const phone = uniquePhone();
    const err = await failure(contacts.create(suite.t.workspaceId, { phone_number: phone }));
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', options: { field: 'name' } });
    const c = await contacts.create(suite.t.workspaceId, { phone_number: phone }, { nameOptional: true });
    expect(contacts.toResponse(c)).toMatchObject({
      name: null,
      phone_number: phone,
      status: 'Active',
      tags: [],
    });
    const bad = await failure(
      contacts.create(suite.t.workspaceId, { phone_number: 'x' }, { nameOptional: true }),
    );
    expect(bad).toMatchObject({ code: 'INVALID_FORMAT', options: { field: 'phone_number' } });
  });

  it('validates like the API', async () => {
    let err = await failure(contacts.create(suite.t.workspaceId, { name: 'x', phone_number: '0044' }));
    expect(err).toMatchObject({ code: 'INVALID_FORMAT', options: { field: 'phone_number' } });
    const c = await contacts.create(suite.t.workspaceId, { name: 'x' });
    err = await failure(contacts.update(suite.t.workspaceId, c.id, { custom_fields: { plan: 'gold' } }));
    expect(err).toMatchObject({ code: 'INVALID_FORMAT', options: { field: 'custom_fields.plan' } });
    err = await failure(contacts.update(suite.t.workspaceId, c.id, { custom_fields: { mood: 'ok' } }));
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', options: { field: 'custom_fields.mood' } });
  });

  it('answers 404 for another workspace’s contact and 409 for a taken phone number', async () => {
    const phone = uniquePhone();
    const c = await contacts.create(suite.t.workspaceId, { name: 'x', phone_number: phone });
    for (const id of [c.id, MISSING]) {
      expect(await failure(contacts.get(suite.other.workspaceId, id))).toMatchObject({
        code: 'RESOURCE_NOT_FOUND',
      });
      expect(await failure(contacts.update(suite.other.workspaceId, id, { name: 'y' }))).toMatchObject({
        code: 'RESOURCE_NOT_FOUND',
      });
    }
    expect(
      await failure(contacts.create(suite.t.workspaceId, { name: 'y', phone_number: phone })),
    ).toMatchObject({
      code: 'CONFLICT',
    });
  });

  it('documents every contacts and scheduling route in the OpenAPI document', async () => {
    const res = await client(suite.app.url, 'localhost').get('/docs/openapi.json');
    const paths = Object.keys(res.body.paths);
    for (const p of [
      '/api/v1/contacts',
      '/api/v1/contacts/{uuid}',
      '/api/v1/contacts/tags',
      '/api/v1/contacts/tags/{uuid}',
      '/api/v1/contacts/fields',
      '/api/v1/contacts/fields/{uuid}',
      '/api/v1/contacts/pipeline/stages',
      '/api/v1/contacts/pipeline/stages/{uuid}',
      '/api/v1/schedules',
      '/api/v1/schedules/{uuid}',
      '/api/v1/availability-types',
      '/api/v1/availability-types/{uuid}',
      '/api/v1/appointments',
      '/api/v1/appointments/{uuid}',
      '/api/v1/appointments/{uuid}/status',
      '/api/v1/appointment-requests',
      '/api/v1/appointment-requests/{uuid}',
      '/api/v1/appointment-requests/{uuid}/approve',
      '/api/v1/appointment-requests/{uuid}/reject',
      '/api/v1/appointment-requests/{uuid}/cancel',
      '/api/v1/appointment-requests/{uuid}/convert',
    ])
      expect(paths).toContain(p);
    expect(res.body.paths['/api/v1/contacts'].post.responses['201']).toBeDefined();
    expect(res.body.components.schemas.ContactResponse.properties.phone_number.example).toBe('+447911123456');
  });
});
