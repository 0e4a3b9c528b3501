import { createContact } from '../factories/contact.factory';
import {
  createAppointment,
  createAvailabilityType,
  createRequest,
  createSchedule,
  future,
} from '../factories/scheduling.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { MISSING } from '../support/ids';
import { useTestApp } from '../setup/suite';

describe('appointment requests', () => {
  const suite = useTestApp({ tenants: ['t', 'other'] });
  let schedule: Record<string, any>;
  let contact: Record<string, any>;
  let day = 10;
  const nextDay = (): number => (day += 1);

  beforeAll(async () => {
    const type = await createAvailabilityType(suite.t, { duration_minutes: 45 });
    schedule = await createSchedule(suite.t, { availability_type_uuid: type.uuid });
    contact = await createContact(suite.t, { name: 'Ada', email: 'ada@example.com' });
  });

  const request = (d: number, extra: object = {}) => ({
    schedule_uuid: schedule.uuid,
    title: 'Intro call',
    start_time: future(d, 9),
    contact_uuid: contact.uuid,
    ...extra,
  });

  describe('POST /appointment-requests', () => {
    it('creates a pending request for a contact, with end_time from the availability type', async () => {
      const d = nextDay();
      const res = await suite.t.http
        .post('/api/v1/appointment-requests')
        .send(request(d, { description: 'Wants a quote', notes: 'VIP' }));
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        title: 'Intro call',
        description: 'Wants a quote',
        notes: 'VIP',
        start_time: future(d, 9),
        end_time: future(d, 9, 45),
        status: 'pending',
        approval_note: null,
        rejection_reason: null,
        schedule: { id: schedule.id, uuid: schedule.uuid, name: schedule.name },
        contact_uuid: contact.uuid,
        contact: { uuid: contact.uuid, name: 'Ada', email: 'ada@example.com' },
        appointment: null,
      });
    });

    it('finds the contact by email or creates it', async () => {
      const tenant = await createTenant(suite.app);
      const s = await createSchedule(tenant);
      const body = {
        schedule_uuid: s.uuid,
        title: 'x',
        start_time: future(2, 9),
        end_time: future(2, 10),
        contact_name: 'Grace Hopper',
        contact_email: 'grace@example.com',
      };
      const first = await createRequest(tenant, body);
      expect(first.contact).toMatchObject({ name: 'Grace Hopper', email: 'grace@example.com' });
      const second = await createRequest(tenant, { ...body, contact_email: 'GRACE@example.com' });
      expect(second.contact_uuid).toBe(first.contact_uuid);
      const contacts = await tenant.http.get('/api/v1/contacts');
      expect(contacts.body.data.items.map((c: any) => c.uuid)).toEqual([first.contact_uuid]);
    });

    it.each([
      [{ schedule_uuid: undefined }, 'VALIDATION_ERROR', 'schedule_uuid'],
      [{ schedule_uuid: 'x' }, 'INVALID_UUID', 'schedule_uuid'],
      [{ schedule_uuid: MISSING }, 'VALIDATION_ERROR', 'schedule_uuid'],
      [{ title: undefined }, 'VALIDATION_ERROR', 'title'],
      [{ start_time: undefined }, 'VALIDATION_ERROR', 'start_time'],
      [{ start_time: 'soon' }, 'INVALID_FORMAT', 'start_time'],
      [{ start_time: '2020-01-01T09:00:00Z' }, 'VALIDATION_ERROR', 'start_time'],
      [{ end_time: 'before' }, 'VALIDATION_ERROR', 'end_time'],
      [{ end_time: '9:30' }, 'INVALID_FORMAT', 'end_time'],
      [{ contact_uuid: undefined }, 'VALIDATION_ERROR', 'contact_uuid'],
      [{ contact_uuid: 'x' }, 'INVALID_UUID', 'contact_uuid'],
      [{ contact_uuid: MISSING }, 'VALIDATION_ERROR', 'contact_uuid'],
      [{ contact_uuid: undefined, contact_name: 'Grace' }, 'VALIDATION_ERROR', 'contact_email'],
      [{ contact_uuid: undefined, contact_email: 'g@example.com' }, 'VALIDATION_ERROR', 'contact_name'],
      [
        { contact_uuid: undefined, contact_name: 'G', contact_email: 'nope' },
        'INVALID_FORMAT',
        'contact_email',
      ],
      [{ custom_answers: [] }, 'INVALID_FORMAT', 'custom_answers'],
      [{ custom_answers: { nope: 1 } }, 'VALIDATION_ERROR', 'custom_answers.nope'],
    ])('refuses %j with %s on %s', async (change, code, field) => {
      const d = nextDay();
      const body: Record<string, unknown> = { ...request(d), ...change };
      if (body.end_time === 'before') body.end_time = future(d, 8);
      const res = await suite.t.http.post('/api/v1/appointment-requests').send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('refuses another workspace’s schedule or contact', async () => {
      const s = await createSchedule(suite.other);
      const c = await createContact(suite.other);
      let res = await suite.t.http
        .post('/api/v1/appointment-requests')
        .send(request(nextDay(), { schedule_uuid: s.uuid }));
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'schedule_uuid' });
      res = await suite.t.http
        .post('/api/v1/appointment-requests')
        .send(request(nextDay(), { contact_uuid: c.uuid }));
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'contact_uuid' });
    });
  });

  describe('GET /appointment-requests', () => {
    let tenant: TestTenant;
    let s1: Record<string, any>;
    let s2: Record<string, any>;

    beforeAll(async () => {
      tenant = await createTenant(suite.app);
      s1 = await createSchedule(tenant, { name: 'One' });
      s2 = await createSchedule(tenant, { name: 'Two' });
      const c = await createContact(tenant);
      const make = (s: Record<string, any>, title: string, d: number, h: number) =>
        createRequest(tenant, {
          schedule_uuid: s.uuid,
          title,
          contact_uuid: c.uuid,
          start_time: future(d, h),
          end_time: future(d, h + 1),
        });
      await make(s1, 'D', 4, 9);
      await make(s1, 'B', 3, 9);
      const rejected = await make(s2, 'A', 2, 9);
      await make(s2, 'C', 3, 9);
      await tenant.http.post(`/api/v1/appointment-requests/${rejected.uuid}/reject`).send({}).expect(200);
    });

    it('answers a plain array ordered by start_time, then created_at', async () => {
      const res = await tenant.http.get('/api/v1/appointment-requests');
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body.data)).toBe(true);
      expect(res.body.data.map((r: any) => r.title)).toEqual(['A', 'B', 'C', 'D']);
    });

    it('filters by status, schedule and days (inclusive)', async () => {
      const titles = async (q: string) =>
        (await tenant.http.get(`/api/v1/appointment-requests?${q}`)).body.data.map((r: any) => r.title);
      expect(await titles('status=rejected')).toEqual(['A']);
      expect(await titles('status=pending')).toEqual(['B', 'C', 'D']);
      expect(await titles(`schedule_uuid=${s1.uuid}`)).toEqual(['B', 'D']);
      expect(await titles(`start_date=${future(3).slice(0, 10)}`)).toEqual(['B', 'C', 'D']);
      expect(await titles(`end_date=${future(3).slice(0, 10)}`)).toEqual(['A', 'B', 'C']);
      expect(
        await titles(
          `start_date=${future(3).slice(0, 10)}&end_date=${future(3).slice(0, 10)}&schedule_uuid=${s2.uuid}`,
        ),
      ).toEqual(['C']);
    });

    it.each([
      ['status=maybe', 'INVALID_FORMAT', 'status'],
      ['schedule_uuid=1', 'INVALID_UUID', 'schedule_uuid'],
      ['start_date=2026-02-30', 'INVALID_FORMAT', 'start_date'],
      ['end_date=12/01/2026', 'INVALID_FORMAT', 'end_date'],
      ['start_date=2026-12-10&end_date=2026-12-01', 'VALIDATION_ERROR', 'end_date'],
    ])('refuses %s', async (q, code, field) => {
      const res = await tenant.http.get(`/api/v1/appointment-requests?${q}`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('shows nothing of another workspace', async () => {
      expect(
        (await suite.other.http.get(`/api/v1/appointment-requests?schedule_uuid=${s1.uuid}`)).body.data,
      ).toEqual([]);
      const all = await suite.other.http.get('/api/v1/appointment-requests');
      expect(all.body.data.map((r: any) => r.schedule_uuid)).not.toContain(s1.uuid);
    });
  });

  describe('moves', () => {
    const post = (uuid: string, move: string, body: object = {}) =>
      suite.t.http.post(`/api/v1/appointment-requests/${uuid}/${move}`).send(body);

    it('reads a request', async () => {
      const r = await createRequest(suite.t, request(nextDay()));
      expect((await suite.t.http.get(`/api/v1/appointment-requests/${r.uuid}`)).body.data).toEqual(r);
    });

    it('approves with a note, then refuses every move but cancel and convert', async () => {
      const r = await createRequest(suite.t, request(nextDay()));
      const res = await post(r.uuid, 'approve', { approval_note: 'Confirmed' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        success: true,
        message: 'Appointment request approved',
        data: { status: 'approved', approval_note: 'Confirmed', appointment: null },
      });
      expect(res.body.data.decided_at).toMatch(/Z$/);
      for (const move of ['approve', 'reject']) {
        const again = await post(r.uuid, move);
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('CONFLICT');
      }
      const cancelled = await post(r.uuid, 'cancel');
      expect(cancelled.body.data.status).toBe('cancelled');
    });

    it('rejects with a reason; a rejected request cannot move again', async () => {
      const r = await createRequest(suite.t, request(nextDay()));
      const res = await post(r.uuid, 'reject', { rejection_reason: 'Fully booked' });
      expect(res.body.data).toMatchObject({ status: 'rejected', rejection_reason: 'Fully booked' });
      for (const move of ['approve', 'reject', 'cancel', 'convert']) {
        const again = await post(r.uuid, move);
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('CONFLICT');
      }
    });

    it('cancels a pending request; a cancelled request cannot move again', async () => {
      const r = await createRequest(suite.t, request(nextDay()));
      expect((await post(r.uuid, 'cancel')).body.data.status).toBe('cancelled');
      for (const move of ['approve', 'reject', 'cancel', 'convert'])
        expect((await post(r.uuid, move)).status).toBe(409);
    });

    it('converts a pending request into an appointment; converting twice is 409', async () => {
      const d = nextDay();
      const r = await createRequest(suite.t, request(d, { custom_answers: {}, notes: 'n' }));
      const res = await post(r.uuid, 'convert');
      expect(res.status).toBe(201);
      expect(res.body.message).toBe('Appointment created from the request');
      const appt = res.body.data;
      expect(appt).toMatchObject({
        title: 'Intro call',
        notes: 'n',
        start_time: r.start_time,
        end_time: r.end_time,
        status: 'approved',
        schedule_uuid: schedule.uuid,
        contact_uuid: contact.uuid,
      });
      const after = (await suite.t.http.get(`/api/v1/appointment-requests/${r.uuid}`)).body.data;
      expect(after.status).toBe('approved');
      expect(after.appointment).toEqual(appt);
      expect((await suite.t.http.get(`/api/v1/appointments/${appt.uuid}`)).body.data).toEqual(appt);
      for (const move of ['convert', 'approve', 'reject', 'cancel']) {
        const again = await post(r.uuid, move);
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('CONFLICT');
      }
    });

    it('converts an approved request and keeps its approval note', async () => {
      const r = await createRequest(suite.t, request(nextDay()));
      await post(r.uuid, 'approve', { approval_note: 'ok' }).expect(200);
      await post(r.uuid, 'convert').expect(201);
      const after = (await suite.t.http.get(`/api/v1/appointment-requests/${r.uuid}`)).body.data;
      expect(after).toMatchObject({ status: 'approved', approval_note: 'ok' });
      expect(after.appointment.uuid).toBeDefined();
    });

    it('refuses a conversion onto a taken slot (409) and changes nothing', async () => {
      const d = nextDay();
      await createAppointment(suite.t, {
        schedule_uuid: schedule.uuid,
        title: 'Busy',
        start_time: future(d, 9),
        end_time: future(d, 10),
      });
      const r = await createRequest(suite.t, request(d));
      const res = await post(r.uuid, 'convert');
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
      const after = (await suite.t.http.get(`/api/v1/appointment-requests/${r.uuid}`)).body.data;
      expect(after).toMatchObject({ status: 'pending', appointment: null });
      const day = future(d).slice(0, 10);
      const list = await suite.t.http.get(`/api/v1/appointments?start_date=${day}&end_date=${day}`);
      expect(list.body.data.items.map((a: any) => a.title)).toEqual(['Busy']);
    });

    it('lets exactly one of several concurrent conversions win', async () => {
      const r = await createRequest(suite.t, request(nextDay()));
      const results = await Promise.all(Array.from({ length: 5 }, () => post(r.uuid, 'convert')));
      expect(results.map((x) => x.status).sort()).toEqual([201, 409, 409, 409, 409]);
    });

    it.each([
      ['approve', { approval_note: 5 }, 'approval_note'],
      ['reject', { rejection_reason: ['x'] }, 'rejection_reason'],
    ])('%s refuses a note that is not a string', async (move, body, field) => {
      const r = await createRequest(suite.t, request(nextDay()));
      const res = await post(r.uuid, move, body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field });
    });

    it.each([
      ['get', ''],
      ['post', '/approve'],
      ['post', '/reject'],
      ['post', '/cancel'],
      ['post', '/convert'],
    ] as const)('%s %s: 404 across workspaces, 422 for a malformed uuid', async (m, suffix) => {
      const r = await createRequest(suite.t, request(nextDay()));
      for (const uuid of [r.uuid, MISSING]) {
        const res = await suite.other.http[m](`/api/v1/appointment-requests/${uuid}${suffix}`).send({});
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
      }
      const bad = await suite.t.http[m](`/api/v1/appointment-requests/nope${suffix}`).send({});
      expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
      expect((await suite.t.http.get(`/api/v1/appointment-requests/${r.uuid}`)).body.data.status).toBe(
        'pending',
      );
    });
  });
});
