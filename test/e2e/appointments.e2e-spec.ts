import { createContact } from '../factories/contact.factory';
import {
  createAppointment,
  createAvailabilityType,
  createSchedule,
  future,
} from '../factories/scheduling.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { MISSING } from '../support/ids';
import { useTestApp } from '../setup/suite';

describe('appointments', () => {
  const suite = useTestApp({ tenants: ['t', 'other'] });
  let schedule: Record<string, any>;
  let day = 10;
  /** A fresh day for each test so slots never collide by accident. */
  const nextDay = (): number => (day += 1);

  beforeAll(async () => {
    const type = await createAvailabilityType(suite.t, { duration_minutes: 30 });
    schedule = await createSchedule(suite.t, {
      availability_type_uuid: type.uuid,
      custom_questions: [
        { name: 'topic', type: 'text', required: true },
        { name: 'guests', type: 'number' },
      ],
    });
  });

  const slot = (d: number, from: number, to: number, extra: object = {}) => ({
    schedule_uuid: schedule.uuid,
    title: 'Demo',
    start_time: future(d, from),
    end_time: future(d, to),
    custom_answers: { topic: 'pricing' },
    ...extra,
  });

  it('checks kept answers against the questions of the schedule an appointment moves to', async () => {
    const other = await createSchedule(suite.t, {
      custom_questions: [{ name: 'budget', type: 'number', required: true }],
    });
    const a = await createAppointment(suite.t, slot(nextDay(), 9, 10));
    const moved = await suite.t.http
      .put(`/api/v1/appointments/${a.uuid}`)
      .send({ schedule_uuid: other.uuid });
    expect(moved.status).toBe(422);
    expect(moved.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'custom_answers.topic' });
    expect(moved.body.message).toContain('custom_answers.budget is required');
    const ok = await suite.t.http
      .put(`/api/v1/appointments/${a.uuid}`)
      .send({ schedule_uuid: other.uuid, custom_answers: { budget: 500 } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.custom_answers).toEqual({ budget: 500 });
  });

  describe('POST /appointments', () => {
    it('creates an appointment and answers it with its schedule and contact', async () => {
      const contact = await createContact(suite.t, {
        name: 'Ada',
        surname: 'Lovelace',
        email: 'ada@example.com',
      });
      const d = nextDay();
      const res = await suite.t.http.post('/api/v1/appointments').send(
        slot(d, 9, 10, {
          contact_uuid: contact.uuid,
          description: 'Walkthrough',
          notes: 'Video',
          status: 'approved',
          custom_answers: { topic: 'pricing', guests: 2 },
        }),
      );
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        title: 'Demo',
        description: 'Walkthrough',
        notes: 'Video',
        start_time: future(d, 9),
        end_time: future(d, 10),
        status: 'approved',
        schedule_uuid: schedule.uuid,
        schedule: { id: schedule.id, uuid: schedule.uuid, name: schedule.name },
        contact_uuid: contact.uuid,
        contact: {
          uuid: contact.uuid,
          name: 'Ada',
          surname: 'Lovelace',
          email: 'ada@example.com',
          phone_number: contact.phone_number,
        },
        custom_answers: { topic: 'pricing', guests: 2 },
      });
      expect(Number.isInteger(res.body.data.contact.id)).toBe(true);
    });

    it('defaults the status to pending and end_time to the availability-type duration', async () => {
      const d = nextDay();
      const a = await createAppointment(suite.t, slot(d, 9, 10, { end_time: undefined }));
      expect(a).toMatchObject({
        status: 'pending',
        start_time: future(d, 9),
        end_time: future(d, 9, 30),
        contact: null,
      });
    });

    it('accepts an appointment without times, and back-to-back slots', async () => {
      await createAppointment(suite.t, {
        schedule_uuid: schedule.uuid,
        title: 'Later',
        custom_answers: { topic: 'x' },
      });
      const d = nextDay();
      await createAppointment(suite.t, slot(d, 9, 10));
      await createAppointment(suite.t, slot(d, 10, 11));
    });

    it.each([
      [{ schedule_uuid: undefined }, 'VALIDATION_ERROR', 'schedule_uuid'],
      [{ schedule_uuid: 'x' }, 'INVALID_UUID', 'schedule_uuid'],
      [{ schedule_uuid: MISSING }, 'VALIDATION_ERROR', 'schedule_uuid'],
      [{ title: undefined }, 'VALIDATION_ERROR', 'title'],
      [{ title: '' }, 'VALIDATION_ERROR', 'title'],
      [{ start_time: 'tomorrow' }, 'INVALID_FORMAT', 'start_time'],
      [{ start_time: '2026-12-01T09:00:00' }, 'INVALID_FORMAT', 'start_time'],
      [{ end_time: '2026-02-30T09:00:00Z' }, 'INVALID_FORMAT', 'end_time'],
      [{ start_time: undefined }, 'VALIDATION_ERROR', 'start_time'],
      [{ end_time: 'same' }, 'VALIDATION_ERROR', 'end_time'],
      [{ end_time: 'before' }, 'VALIDATION_ERROR', 'end_time'],
      [{ status: 'done' }, 'INVALID_FORMAT', 'status'],
      [{ contact_uuid: 'x' }, 'INVALID_UUID', 'contact_uuid'],
      [{ contact_uuid: MISSING }, 'VALIDATION_ERROR', 'contact_uuid'],
      [{ custom_answers: 'x' }, 'INVALID_FORMAT', 'custom_answers'],
      [{ custom_answers: { topic: 'x', colour: 'red' } }, 'VALIDATION_ERROR', 'custom_answers.colour'],
      [{ custom_answers: { topic: 'x', guests: 'two' } }, 'INVALID_FORMAT', 'custom_answers.guests'],
      [{ custom_answers: {} }, 'VALIDATION_ERROR', 'custom_answers.topic'],
    ])('refuses %j with %s on %s', async (change, code, field) => {
      const d = nextDay();
      const body: Record<string, unknown> = { ...slot(d, 9, 10), ...change };
      if (body.end_time === 'same') body.end_time = body.start_time;
      if (body.end_time === 'before') body.end_time = future(d, 8);
      const res = await suite.t.http.post('/api/v1/appointments').send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('requires end_time when the schedule has no availability type', async () => {
      const bare = await createSchedule(suite.t);
      const res = await suite.t.http
        .post('/api/v1/appointments')
        .send({ schedule_uuid: bare.uuid, title: 'x', start_time: future(nextDay(), 9) });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'end_time' });
    });

    it('refuses an overlapping slot in the same schedule (409), not in another or over a cancelled one', async () => {
      const d = nextDay();
      await createAppointment(suite.t, slot(d, 9, 11));
      const res = await suite.t.http.post('/api/v1/appointments').send(slot(d, 10, 12));
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
      const elsewhere = await createSchedule(suite.t);
      await createAppointment(suite.t, {
        ...slot(d, 10, 12),
        schedule_uuid: elsewhere.uuid,
        custom_answers: {},
      });
      const cancelled = await createAppointment(suite.t, slot(d, 14, 15, { status: 'cancelled' }));
      await createAppointment(suite.t, slot(d, 14, 15));
      const revive = await suite.t.http
        .post(`/api/v1/appointments/${cancelled.uuid}/status`)
        .send({ status: 'pending' });
      expect(revive.status).toBe(409);
      expect(revive.body.error.code).toBe('CONFLICT');
    });

    it('lets exactly one of 10 concurrent requests for the same slot win', async () => {
      const d = nextDay();
      const results = await Promise.all(
        Array.from({ length: 10 }, () => suite.t.http.post('/api/v1/appointments').send(slot(d, 9, 10))),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('CONFLICT');
      const list = await suite.t.http.get(
        `/api/v1/appointments?start_date=${future(d).slice(0, 10)}&end_date=${future(d).slice(0, 10)}`,
      );
      expect(list.body.data.pagination.total).toBe(1);
    });

    it('refuses another workspace’s schedule or contact as a body reference', async () => {
      const theirSchedule = await createSchedule(suite.other);
      const theirContact = await createContact(suite.other);
      let res = await suite.t.http
        .post('/api/v1/appointments')
        .send(slot(nextDay(), 9, 10, { schedule_uuid: theirSchedule.uuid }));
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'schedule_uuid' });
      res = await suite.t.http
        .post('/api/v1/appointments')
        .send(slot(nextDay(), 9, 10, { contact_uuid: theirContact.uuid }));
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'contact_uuid' });
    });
  });

  describe('GET /appointments', () => {
    let tenant: TestTenant;
    let s1: Record<string, any>;
    let s2: Record<string, any>;
    let contact: Record<string, any>;

    beforeAll(async () => {
      tenant = await createTenant(suite.app);
      s1 = await createSchedule(tenant, { name: 'One' });
      s2 = await createSchedule(tenant, { name: 'Two' });
      contact = await createContact(tenant);
      await createAppointment(tenant, {
        schedule_uuid: s1.uuid,
        title: 'C',
        start_time: future(5, 9),
        end_time: future(5, 10),
      });
      await createAppointment(tenant, {
        schedule_uuid: s2.uuid,
        title: 'A',
        start_time: future(3, 9),
        end_time: future(3, 10),
        contact_uuid: contact.uuid,
        status: 'approved',
      });
      await createAppointment(tenant, {
        schedule_uuid: s1.uuid,
        title: 'B',
        start_time: future(4, 9),
        end_time: future(4, 10),
      });
    });

    it('lists by start_time with pagination', async () => {
      const res = await tenant.http.get('/api/v1/appointments?per_page=2');
      expect(res.status).toBe(200);
      expect(res.body.data.items.map((a: any) => a.title)).toEqual(['A', 'B']);
      expect(res.body.data.pagination).toEqual({ page: 1, per_page: 2, total: 3, total_pages: 2 });
    });

    it('filters by schedule, contact, status and days (inclusive)', async () => {
      const titles = async (q: string) =>
        (await tenant.http.get(`/api/v1/appointments?${q}`)).body.data.items.map((a: any) => a.title);
      expect(await titles(`schedule_uuid=${s1.uuid}`)).toEqual(['B', 'C']);
      expect(await titles(`contact_uuid=${contact.uuid}`)).toEqual(['A']);
      expect(await titles('status=approved')).toEqual(['A']);
      expect(await titles(`start_date=${future(4).slice(0, 10)}`)).toEqual(['B', 'C']);
      expect(await titles(`end_date=${future(4).slice(0, 10)}`)).toEqual(['A', 'B']);
      expect(await titles(`start_date=${future(4).slice(0, 10)}&end_date=${future(4).slice(0, 10)}`)).toEqual(
        ['B'],
      );
    });

    it.each([
      ['schedule_uuid=x', 'INVALID_UUID', 'schedule_uuid'],
      ['contact_uuid=x', 'INVALID_UUID', 'contact_uuid'],
      ['status=later', 'INVALID_FORMAT', 'status'],
      ['start_date=2026-13-01', 'INVALID_FORMAT', 'start_date'],
      ['end_date=tomorrow', 'INVALID_FORMAT', 'end_date'],
      ['start_date=2026-12-02&end_date=2026-12-01', 'VALIDATION_ERROR', 'end_date'],
    ])('refuses %s', async (q, code, field) => {
      const res = await tenant.http.get(`/api/v1/appointments?${q}`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('shows nothing of another workspace', async () => {
      const res = await suite.other.http.get(`/api/v1/appointments?schedule_uuid=${s1.uuid}`);
      expect(res.body.data.items).toEqual([]);
      const all = await suite.other.http.get('/api/v1/appointments?per_page=100');
      expect(all.body.data.items.map((a: any) => a.schedule_uuid)).not.toContain(s1.uuid);
    });
  });

  describe('GET, PUT, DELETE /appointments/{uuid} and POST /status', () => {
    it('reads an appointment', async () => {
      const a = await createAppointment(suite.t, slot(nextDay(), 9, 10));
      const res = await suite.t.http.get(`/api/v1/appointments/${a.uuid}`);
      expect(res.body.data).toEqual(a);
    });

    it('PUT changes only the keys sent; moving start_time keeps the length', async () => {
      const d = nextDay();
      const a = await createAppointment(suite.t, slot(d, 9, 10, { notes: 'keep' }));
      let res = await suite.t.http.put(`/api/v1/appointments/${a.uuid}`).send({ title: 'Renamed' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        title: 'Renamed',
        notes: 'keep',
        start_time: a.start_time,
        end_time: a.end_time,
      });
      res = await suite.t.http.put(`/api/v1/appointments/${a.uuid}`).send({ start_time: future(d, 13) });
      expect(res.body.data).toMatchObject({ start_time: future(d, 13), end_time: future(d, 14) });
      res = await suite.t.http
        .put(`/api/v1/appointments/${a.uuid}`)
        .send({ end_time: future(d, 15), custom_answers: { topic: 'new' } });
      expect(res.body.data).toMatchObject({
        start_time: future(d, 13),
        end_time: future(d, 15),
        custom_answers: { topic: 'new' },
      });
      res = await suite.t.http
        .put(`/api/v1/appointments/${a.uuid}`)
        .send({ status: 'completed', description: null });
      expect(res.body.data).toMatchObject({ status: 'completed', description: null });
    });

    it('PUT refuses a move onto another appointment (409) and leaves it unchanged', async () => {
      const d = nextDay();
      await createAppointment(suite.t, slot(d, 9, 10));
      const b = await createAppointment(suite.t, slot(d, 11, 12));
      const res = await suite.t.http
        .put(`/api/v1/appointments/${b.uuid}`)
        .send({ start_time: future(d, 9, 30) });
      expect(res.status).toBe(409);
      expect((await suite.t.http.get(`/api/v1/appointments/${b.uuid}`)).body.data.start_time).toBe(
        b.start_time,
      );
    });

    it.each([
      [{ end_time: 'before' }, 'VALIDATION_ERROR', 'end_time'],
      [{ start_time: 'after' }, 'VALIDATION_ERROR', 'end_time'],
      [{ start_time: 'noon' }, 'INVALID_FORMAT', 'start_time'],
      [{ title: '' }, 'VALIDATION_ERROR', 'title'],
      [{ title: null }, 'VALIDATION_ERROR', 'title'],
      [{ status: 'lost' }, 'INVALID_FORMAT', 'status'],
      [{ schedule_uuid: MISSING }, 'VALIDATION_ERROR', 'schedule_uuid'],
      [{ contact_uuid: MISSING }, 'VALIDATION_ERROR', 'contact_uuid'],
      [{ custom_answers: { nope: 1 } }, 'VALIDATION_ERROR', 'custom_answers.nope'],
    ])('PUT refuses %j', async (change, code, field) => {
      const d = nextDay();
      const a = await createAppointment(suite.t, slot(d, 9, 10));
      const body: Record<string, unknown> = { ...change };
      if (body.end_time === 'before') body.end_time = future(d, 8);
      // start_time moved to the end, with end_time sent unchanged: the end is no longer after the start.
      if (body.start_time === 'after')
        Object.assign(body, { start_time: future(d, 10), end_time: a.end_time });
      const res = await suite.t.http.put(`/api/v1/appointments/${a.uuid}`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('POST /status sets any of the four statuses', async () => {
      const a = await createAppointment(suite.t, slot(nextDay(), 9, 10));
      for (const status of ['approved', 'completed', 'cancelled', 'pending']) {
        const res = await suite.t.http.post(`/api/v1/appointments/${a.uuid}/status`).send({ status });
        expect(res.status).toBe(200);
        expect(res.body.data.status).toBe(status);
      }
    });

    it.each([
      [{}, 'VALIDATION_ERROR'],
      [{ status: '' }, 'VALIDATION_ERROR'],
      [{ status: 'rejected' }, 'INVALID_FORMAT'],
    ])('POST /status refuses %j', async (body, code) => {
      const a = await createAppointment(suite.t, slot(nextDay(), 9, 10));
      const res = await suite.t.http.post(`/api/v1/appointments/${a.uuid}/status`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field: 'status' });
    });

    it('deletes an appointment and frees its slot', async () => {
      const d = nextDay();
      const a = await createAppointment(suite.t, slot(d, 9, 10));
      const res = await suite.t.http.delete(`/api/v1/appointments/${a.uuid}`);
      expect(res.body).toEqual({ success: true, message: 'Deleted', data: null });
      expect((await suite.t.http.get(`/api/v1/appointments/${a.uuid}`)).status).toBe(404);
      await createAppointment(suite.t, slot(d, 9, 10));
    });

    it.each([
      ['get', ''],
      ['put', ''],
      ['delete', ''],
      ['post', '/status'],
    ] as const)('%s %s: 404 across workspaces, 422 for a malformed uuid', async (m, suffix) => {
      const a = await createAppointment(suite.t, slot(nextDay(), 9, 10));
      for (const uuid of [a.uuid, MISSING]) {
        const res = await suite.other.http[m](`/api/v1/appointments/${uuid}${suffix}`).send({
          status: 'cancelled',
          title: 'x',
        });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
      }
      const bad = await suite.t.http[m](`/api/v1/appointments/nope${suffix}`).send({ status: 'cancelled' });
      expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
      const still = await suite.t.http.get(`/api/v1/appointments/${a.uuid}`);
      expect(still.body.data).toMatchObject({ status: 'pending', title: 'Demo' });
    });
  });
});
