import {
  createAppointment,
  createAvailabilityType,
  createSchedule,
  future,
} from '../factories/scheduling.factory';
import { DataSource } from 'typeorm';
import { insertAgent } from '../factories/agent.factory';
import { createTenant } from '../factories/workspace.factory';
import { MISSING } from '../support/ids';
import { useTestApp } from '../setup/suite';

describe('schedules and availability types', () => {
  const suite = useTestApp({ tenants: ['t', 'other'] });

  describe('/availability-types', () => {
    it('creates, lists, reads, changes and deletes', async () => {
      const tenant = await createTenant(suite.app);
      const res = await tenant.http
        .post('/api/v1/availability-types')
        .send({ name: 'Call', duration_minutes: 45 });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ name: 'Call', duration_minutes: 45 });
      const type = res.body.data;
      const list = await tenant.http.get('/api/v1/availability-types');
      expect(list.body.data).toMatchObject({ items: [type], pagination: { total: 1 } });
      expect((await tenant.http.get(`/api/v1/availability-types/${type.uuid}`)).body.data).toEqual(type);
      const put = await tenant.http
        .put(`/api/v1/availability-types/${type.uuid}`)
        .send({ duration_minutes: 60 });
      expect(put.body.data).toMatchObject({ name: 'Call', duration_minutes: 60 });
      const schedule = await createSchedule(tenant, { availability_type_uuid: type.uuid });
      await tenant.http.delete(`/api/v1/availability-types/${type.uuid}`).expect(200);
      const after = await tenant.http.get(`/api/v1/schedules/${schedule.uuid}`);
      expect(after.body.data.availability_type_uuid).toBeNull();
    });

    it.each([
      ['post', { duration_minutes: 30 }, 'VALIDATION_ERROR', 'name'],
      ['post', { name: 'x' }, 'VALIDATION_ERROR', 'duration_minutes'],
      ['post', { name: 'x', duration_minutes: 0 }, 'INVALID_FORMAT', 'duration_minutes'],
      ['post', { name: 'x', duration_minutes: 1441 }, 'INVALID_FORMAT', 'duration_minutes'],
      ['post', { name: 'x', duration_minutes: '30' }, 'INVALID_FORMAT', 'duration_minutes'],
      ['put', { name: '' }, 'VALIDATION_ERROR', 'name'],
      ['put', { duration_minutes: 2.5 }, 'INVALID_FORMAT', 'duration_minutes'],
    ] as const)('%s refuses %j', async (method, body, code, field) => {
      const type = await createAvailabilityType(suite.t);
      const path =
        method === 'post' ? '/api/v1/availability-types' : `/api/v1/availability-types/${type.uuid}`;
      const res = await suite.t.http[method](path).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it.each(['get', 'put', 'delete'] as const)(
      '%s: 404 across workspaces, 422 for a malformed uuid',
      async (m) => {
        const type = await createAvailabilityType(suite.t);
        for (const uuid of [type.uuid, MISSING]) {
          const res = await suite.other.http[m](`/api/v1/availability-types/${uuid}`).send({ name: 'x' });
          expect(res.status).toBe(404);
          expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
        }
        const bad = await suite.t.http[m]('/api/v1/availability-types/nope').send({});
        expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
      },
    );

    it('lists only the workspace’s types', async () => {
      const type = await createAvailabilityType(suite.t);
      const res = await suite.other.http.get('/api/v1/availability-types?per_page=100');
      expect(res.body.data.items.map((x: any) => x.uuid)).not.toContain(type.uuid);
    });
  });

  describe('/schedules', () => {
    it('creates a schedule with hours, agents and questions, and reads it back', async () => {
      const type = await createAvailabilityType(suite.t, { duration_minutes: 20 });
      const agent = await insertAgent(suite.app.get(DataSource), suite.t.workspaceId);
      const res = await suite.t.http.post('/api/v1/schedules').send({
        name: 'Sales demos',
        type: 'one_on_one',
        color: '#3366ff',
        timezone: 'America/New_York',
        weekly_hours: {
          fri: [['13:00', '17:00']],
          mon: [
            ['13:00', '17:00'],
            ['09:00', '12:00'],
          ],
        },
        availability_type_uuid: type.uuid,
        ai_agents: [agent, agent.toUpperCase()],
        custom_questions: [
          { name: 'topic', type: 'text', required: true, description: 'What about?' },
          { name: 'size', type: 'number' },
        ],
      });
      expect(res.status).toBe(201);
      const s = res.body.data;
      expect(s).toMatchObject({
        name: 'Sales demos',
        type: 'one_on_one',
        color: '#3366FF',
        timezone: 'America/New_York',
        weekly_hours: {
          mon: [
            ['09:00', '12:00'],
            ['13:00', '17:00'],
          ],
          fri: [['13:00', '17:00']],
        },
        availability_type_uuid: type.uuid,
        ai_agents: [agent],
        custom_questions: [
          { name: 'topic', type: 'text', required: true, description: 'What about?' },
          { name: 'size', type: 'number', required: false, description: null },
        ],
      });
      expect(Object.keys(s.weekly_hours)).toEqual(['mon', 'fri']);
      expect(Number.isInteger(s.id)).toBe(true);
      expect((await suite.t.http.get(`/api/v1/schedules/${s.uuid}`)).body.data).toEqual(s);
    });

    it('defaults the time zone to UTC and lists newest first', async () => {
      const tenant = await createTenant(suite.app);
      const a = await createSchedule(tenant, { name: 'A', timezone: undefined });
      const b = await createSchedule(tenant, { name: 'B' });
      expect(a.timezone).toBe('UTC');
      const list = await tenant.http.get('/api/v1/schedules');
      expect(list.body.data.items.map((s: any) => s.uuid)).toEqual([b.uuid, a.uuid]);
    });

    it('PUT changes only the keys sent', async () => {
      const s = await createSchedule(suite.t, {
        color: '#111111',
        weekly_hours: { mon: [['09:00', '10:00']] },
      });
      const res = await suite.t.http
        .put(`/api/v1/schedules/${s.uuid}`)
        .send({ name: 'Renamed', ai_agents: [] });
      expect(res.body.data).toMatchObject({
        name: 'Renamed',
        color: '#111111',
        timezone: 'Europe/Paris',
        weekly_hours: { mon: [['09:00', '10:00']] },
        ai_agents: [],
      });
      const cleared = await suite.t.http
        .put(`/api/v1/schedules/${s.uuid}`)
        .send({ color: null, availability_type_uuid: null });
      expect(cleared.body.data).toMatchObject({ color: null, availability_type_uuid: null, name: 'Renamed' });
    });

    it.each([
      [{}, 'VALIDATION_ERROR', 'name'],
      [{ name: '' }, 'VALIDATION_ERROR', 'name'],
      [{ name: 'x', timezone: 'Europe/Nowhere' }, 'INVALID_FORMAT', 'timezone'],
      [{ name: 'x', color: '#ABC' }, 'INVALID_FORMAT', 'color'],
      [{ name: 'x', weekly_hours: [] }, 'INVALID_FORMAT', 'weekly_hours'],
      [{ name: 'x', weekly_hours: { someday: [] } }, 'INVALID_FORMAT', 'weekly_hours.someday'],
      [{ name: 'x', weekly_hours: { mon: [['09:00', '08:00']] } }, 'INVALID_FORMAT', 'weekly_hours.mon.0'],
      [
        {
          name: 'x',
          weekly_hours: {
            tue: [
              ['09:00', '12:00'],
              ['9am', '5pm'],
            ],
          },
        },
        'INVALID_FORMAT',
        'weekly_hours.tue.1',
      ],
      [
        {
          name: 'x',
          weekly_hours: {
            wed: [
              ['09:00', '12:00'],
              ['11:00', '13:00'],
            ],
          },
        },
        'INVALID_FORMAT',
        'weekly_hours.wed.1',
      ],
      [{ name: 'x', availability_type_uuid: 'x' }, 'INVALID_UUID', 'availability_type_uuid'],
      [{ name: 'x', availability_type_uuid: MISSING }, 'VALIDATION_ERROR', 'availability_type_uuid'],
      [{ name: 'x', ai_agents: 'x' }, 'INVALID_FORMAT', 'ai_agents'],
      [{ name: 'x', ai_agents: ['nope'] }, 'INVALID_UUID', 'ai_agents'],
      [{ name: 'x', custom_questions: [{ type: 'text' }] }, 'VALIDATION_ERROR', 'custom_questions.0.name'],
      [
        { name: 'x', custom_questions: [{ name: 'q', type: 'colour' }] },
        'INVALID_FORMAT',
        'custom_questions.0.type',
      ],
      [
        { name: 'x', custom_questions: [{ name: 'q', type: 'text', required: 'yes' }] },
        'INVALID_FORMAT',
        'custom_questions.0.required',
      ],
      [
        {
          name: 'x',
          custom_questions: [
            { name: 'q', type: 'text' },
            { name: 'q', type: 'number' },
          ],
        },
        'INVALID_FORMAT',
        'custom_questions.1.name',
      ],
    ])('POST refuses %j', async (body, code, field) => {
      const res = await suite.t.http.post('/api/v1/schedules').send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('names the unknown agent by its index, including another workspace’s agent', async () => {
      const mine = await insertAgent(suite.app.get(DataSource), suite.t.workspaceId);
      const theirs = await insertAgent(suite.app.get(DataSource), suite.other.workspaceId);
      let res = await suite.t.http.post('/api/v1/schedules').send({ name: 'x', ai_agents: [mine, MISSING] });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'ai_agents.1' });
      const s = await createSchedule(suite.t);
      res = await suite.t.http.put(`/api/v1/schedules/${s.uuid}`).send({ ai_agents: [theirs] });
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'ai_agents.0' });
    });

    it('refuses another workspace’s availability type', async () => {
      const type = await createAvailabilityType(suite.other);
      const res = await suite.t.http
        .post('/api/v1/schedules')
        .send({ name: 'x', availability_type_uuid: type.uuid });
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'availability_type_uuid' });
    });

    it.each([
      [{ name: null }, 'VALIDATION_ERROR', 'name'],
      [{ timezone: null }, 'INVALID_FORMAT', 'timezone'],
      [{ weekly_hours: { sun: [['10:00']] } }, 'INVALID_FORMAT', 'weekly_hours.sun.0'],
      [{ custom_questions: [{ name: 'q' }] }, 'VALIDATION_ERROR', 'custom_questions.0.type'],
    ])('PUT refuses %j', async (body, code, field) => {
      const s = await createSchedule(suite.t);
      const res = await suite.t.http.put(`/api/v1/schedules/${s.uuid}`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('deletes a schedule without appointments; one with appointments is 409', async () => {
      const empty = await createSchedule(suite.t);
      const del = await suite.t.http.delete(`/api/v1/schedules/${empty.uuid}`);
      expect(del.body).toEqual({ success: true, message: 'Deleted', data: null });
      const busy = await createSchedule(suite.t);
      await createAppointment(suite.t, {
        schedule_uuid: busy.uuid,
        start_time: future(3),
        end_time: future(3, 10),
      });
      const res = await suite.t.http.delete(`/api/v1/schedules/${busy.uuid}`);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
      expect((await suite.t.http.get(`/api/v1/schedules/${busy.uuid}`)).status).toBe(200);
    });

    it.each(['get', 'put', 'delete'] as const)(
      '%s: 404 across workspaces, 422 for a malformed uuid',
      async (m) => {
        const s = await createSchedule(suite.t);
        for (const uuid of [s.uuid, MISSING]) {
          const res = await suite.other.http[m](`/api/v1/schedules/${uuid}`).send({ name: 'x' });
          expect(res.status).toBe(404);
          expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
        }
        const bad = await suite.t.http[m]('/api/v1/schedules/nope').send({});
        expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
      },
    );

    it('lists only the workspace’s schedules', async () => {
      const s = await createSchedule(suite.t);
      const res = await suite.other.http.get('/api/v1/schedules?per_page=100');
      expect(res.body.data.items.map((x: any) => x.uuid)).not.toContain(s.uuid);
    });
  });
});
