import { FlowClock } from '@/modules/flows/flow-clock';
import { createContact } from '../factories/contact.factory';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { createAvailabilityType, createSchedule, future } from '../factories/scheduling.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { MISSING } from '../support/ids';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

type Flow = {
  uuid: string;
  status: string;
  live_version: number | null;
  has_undeployed_changes: boolean;
  steps: Step[];
};
type Step = { uuid: string; step_number: number; config: Record<string, any>; validation_errors: unknown[] };

describe('automation flows: steps, deploy and versions, triggers, actions, executions', () => {
  const suite = useTestApp({ servers: { hooks: () => WebhookReceiver.start() }, tenants: ['t', 'other'] });
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let hooks: WebhookReceiver;

  const newFlow = async (name = 'flow') =>
    (await t.http.post('/api/v1/flows').send({ name }).expect(201)).body.data as Flow;
  const addStep = async (flow: string, body: Record<string, unknown>, status = 201) => {
    const res = await t.http.post(`/api/v1/flow/${flow}/steps`).send(body);
    expect({ status: res.status, body: res.body }).toMatchObject({ status });
    return res.body.data as Flow;
  };
  const webhookStep = (path: string, body: unknown = {}) => ({
    kind: 'action',
    action_key: 'send_webhook',
    config: { url: hooks.url(path), body },
  });
  const executions = async (flow: string) =>
    (await t.http.get(`/api/v1/flow/${flow}/executions`).expect(200)).body.data.items as Array<{
      uuid: string;
      status: string;
    }>;
  const ended = (flow: string, count = 1, timeoutMs = 15_000) =>
    waitFor(
      async () => {
        const list = (await executions(flow)).filter((e) => ['succeeded', 'failed'].includes(e.status));
        return list.length >= count ? list : undefined;
      },
      timeoutMs,
      `${count} executions of ${flow} ended`,
    );
  const execution = async (flow: string, id: string) =>
    (await t.http.get(`/api/v1/flow/${flow}/executions/${id}`).expect(200)).body.data;

  beforeAll(() => {
    ({ app, t, other, hooks } = suite);
  });

  it('step 1 is always the trigger; a second trigger is 409, an action first is 422, later references 422', async () => {
    const f = await newFlow();
    await addStep(f.uuid, webhookStep('/x'), 422);
    await addStep(f.uuid, { kind: 'trigger', trigger_key: 'contact_created', config: {} });
    await addStep(f.uuid, { kind: 'trigger', trigger_key: 'webhook', config: {} }, 409);
    await addStep(f.uuid, { ...webhookStep('/x', { a: '{{step2.body}}' }) }, 422);
    await addStep(f.uuid, { kind: 'trigger', trigger_key: 'schedule', config: { cron: '* * * * * *' } }, 409);
    const bad = await t.http
      .post(`/api/v1/flow/${f.uuid}/steps`)
      .send({ kind: 'action', action_key: 'nope', config: {} })
      .expect(422);
    expect(bad.body.error.field).toBe('action_key');
    const two = await addStep(f.uuid, webhookStep('/x'));
    await t.http.delete(`/api/v1/flow/${f.uuid}/steps/${two.steps[0].uuid}`).expect(409);
  });

  it('insert and delete renumber and rewrite references: middle, inside a branch, a condition with children', async () => {
    const f = await newFlow();
    let flow = await addStep(f.uuid, { kind: 'trigger', trigger_key: 'contact_created', config: {} });
    flow = await addStep(f.uuid, webhookStep('/a', { n: '{{step1.contact.name}}' }));
    flow = await addStep(
      f.uuid,
      webhookStep('/b', { prev: '{{ step2.status_code }}', deep: [{ x: 'code {{step2.body.id}}' }] }),
    );
    // Middle: a step after step 1 moves 2 and 3 up; references to 2 become 3.
    flow = await addStep(f.uuid, { ...webhookStep('/m'), insert_after_step_uuid: flow.steps[0].uuid });
    expect(flow.steps.map((s) => s.step_number)).toEqual([1, 2, 3, 4]);
    expect(flow.steps[3].config.body).toEqual({
      prev: '{{ step3.status_code }}',
      deep: [{ x: 'code {{step3.body.id}}' }],
    });
    expect(flow.steps[2].config.body).toEqual({ n: '{{step1.contact.name}}' });
    // A condition after step 2 with a child in each branch.
    flow = await addStep(f.uuid, {
      kind: 'action',
      action_key: 'condition',
      config: { conditions: [{ left: '{{step1.contact.name}}', op: 'eq', right: 'Ada' }] },
      insert_after_step_uuid: flow.steps[1].uuid,
    });
    const cond = flow.steps[2].uuid;
    expect(flow.steps[4].config.body.prev).toBe('{{ step4.status_code }}');
    flow = await addStep(f.uuid, { ...webhookStep('/false'), parent_step_uuid: cond, branch_key: 'false' });
    flow = await addStep(f.uuid, {
      ...webhookStep('/true', { c: '{{step3.result}}' }),
      parent_step_uuid: cond,
      branch_key: 'true',
    });
    // Order: trigger, /m, condition, /true, /false, /a, /b
    expect(flow.steps.map((s) => s.config.url?.replace(/^.*\//, '/') ?? 'c')).toEqual([
      'c',
      '/m',
      'c',
      '/true',
      '/false',
      '/a',
      '/b',
    ]);
    expect(flow.steps[6].config.body.prev).toBe('{{ step6.status_code }}');
    // Inside a branch: before /false, so /false and later move up.
    flow = await addStep(f.uuid, {
      ...webhookStep('/true2'),
      parent_step_uuid: cond,
      branch_key: 'true',
      insert_after_step_uuid: flow.steps[3].uuid,
    });
    expect(flow.steps[4].config.url).toContain('/true2');
    expect(flow.steps[7].config.body.prev).toBe('{{ step7.status_code }}');
    // A referenced step cannot go; the 409 names the reference.
    const refused = await t.http.delete(`/api/v1/flow/${f.uuid}/steps/${flow.steps[6].uuid}`).expect(409);
    expect(refused.body.message).toContain('steps.8.config.body.prev');
    // Deleting the condition takes its 3 children: the last step goes from 8 to 4.
    flow = (await t.http.delete(`/api/v1/flow/${f.uuid}/steps/${cond}`).expect(200)).body.data;
    expect(flow.steps).toHaveLength(4);
    expect(flow.steps[3].config.body).toEqual({
      prev: '{{ step3.status_code }}',
      deep: [{ x: 'code {{step3.body.id}}' }],
    });
  });

  it('conditions nest at most 3 deep; a 6-field cron is 422 on config.cron; missing values block deploy', async () => {
    const f = await newFlow();
    await addStep(f.uuid, { kind: 'trigger', trigger_key: 'contact_created', config: {} });
    const cond = {
      kind: 'action',
      action_key: 'condition',
      config: { conditions: [{ left: 1, op: 'eq', right: 1 }] },
    };
    let flow = await addStep(f.uuid, cond);
    for (let depth = 2; depth <= 3; depth++)
      flow = await addStep(f.uuid, {
        ...cond,
        parent_step_uuid: flow.steps[depth - 1].uuid,
        branch_key: 'true',
      });
    await addStep(f.uuid, { ...cond, parent_step_uuid: flow.steps[3].uuid, branch_key: 'true' }, 422);
    const g = await newFlow();
    const res = await t.http
      .post(`/api/v1/flow/${g.uuid}/steps`)
      .send({ kind: 'trigger', trigger_key: 'schedule', config: { cron: '0 * * * * *' } })
      .expect(422);
    expect(res.body.error.field).toBe('config.cron');
    const h = await newFlow();
    await addStep(h.uuid, { kind: 'trigger', trigger_key: 'contact_created', config: {} });
    await t.http.post(`/api/v1/flow/${h.uuid}/deploy`).expect(422);
    const draft = await addStep(h.uuid, { kind: 'action', action_key: 'add_tag', config: {} });
    expect(draft.steps[1].validation_errors).toHaveLength(2);
    const refused = await t.http.post(`/api/v1/flow/${h.uuid}/deploy`).expect(422);
    expect(refused.body.error.field).toBe('steps.2.config.contact_uuid');
  });

  it('contact_created runs a deployed flow; draft edits leave the live version; states and their 409s', async () => {
    const f = await newFlow('welcome');
    await addStep(f.uuid, { kind: 'trigger', trigger_key: 'contact_created', config: {} });
    let flow = await addStep(f.uuid, {
      ...webhookStep('/welcome', { name: '{{step1.contact.name}}', phone: '{{step1.contact.phone_number}}' }),
      config: {
        url: hooks.url('/welcome'),
        body: { name: '{{step1.contact.name}}' },
        headers: { Authorization: 'Bearer s3cret' },
        secret: 'whsec_dGVzdHNlY3JldA==',
      },
    });
    await t.http.post(`/api/v1/flow/${f.uuid}/enable`).expect(409);
    flow = (await t.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(200)).body.data;
    expect(flow).toMatchObject({ status: 'deployed', live_version: 1, has_undeployed_changes: false });
    await t.http.delete(`/api/v1/flow/${f.uuid}`).expect(409);
    // A draft edit: the live version keeps running.
    flow = (
      await t.http
        .patch(`/api/v1/flow/${f.uuid}/steps/${flow.steps[1].uuid}`)
        .send({ config: { url: hooks.url('/welcome-v2'), body: { name: '{{step1.contact.name}}' } } })
        .expect(200)
    ).body.data;
    expect(flow.has_undeployed_changes).toBe(true);
    const contact = await createContact(t, { name: 'Grace' });
    const [run] = await ended(f.uuid);
    expect(hooks.at('/welcome').map((r) => JSON.parse(r.body))).toEqual([{ name: 'Grace' }]);
    expect(hooks.at('/welcome')[0].headers['webhook-signature']).toMatch(/^v1,/);
    const detail = await execution(f.uuid, run.uuid);
    expect(detail).toMatchObject({ status: 'succeeded', version: 1, trigger: { key: 'contact_created' } });
    expect(detail.trigger.data.contact.uuid).toBe(contact.uuid);
    expect(detail.steps[1]).toMatchObject({ status: 'succeeded', attempts: 1, output: { status_code: 200 } });
    expect(detail.steps[1].input.headers.Authorization).toBe('***');
    expect(detail.steps[1].input.secret).toBe('***');
    // Redeploy: version 2 takes the edit.
    flow = (await t.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(200)).body.data;
    expect(flow.live_version).toBe(2);
    const versions = (await t.http.get(`/api/v1/flow/${f.uuid}/versions`).expect(200)).body.data;
    expect(versions.items.map((v: { version_number: number }) => v.version_number)).toEqual([2, 1]);
    expect(versions.pagination).toEqual({ page: 1, per_page: 20, total: 2, total_pages: 1 });
    const second = (await t.http.get(`/api/v1/flow/${f.uuid}/versions?per_page=1&page=2`).expect(200)).body
      .data;
    expect(second.items.map((v: { version_number: number }) => v.version_number)).toEqual([1]);
    expect(second.pagination).toEqual({ page: 2, per_page: 1, total: 2, total_pages: 2 });
    const badPage = await t.http.get(`/api/v1/flow/${f.uuid}/versions?page=0`).expect(422);
    expect(badPage.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'page' });
    await createContact(t, { name: 'Linus' });
    await waitFor(async () => (hooks.at('/welcome-v2').length ? true : undefined), 15_000, 'v2 webhook');
    // disable: triggers stop; enable; undeploy; restore.
    await t.http.post(`/api/v1/flow/${f.uuid}/disable`).expect(200);
    await t.http.post(`/api/v1/flow/${f.uuid}/disable`).expect(409);
    await createContact(t, { name: 'Nobody' });
    await t.http.post(`/api/v1/flow/${f.uuid}/enable`).expect(200);
    flow = (await t.http.post(`/api/v1/flow/${f.uuid}/undeploy`).expect(200)).body.data;
    expect(flow).toMatchObject({ status: 'draft', live_version: null });
    flow = (await t.http.post(`/api/v1/flow/${f.uuid}/versions/1/restore`).expect(200)).body.data;
    expect(flow.steps[1].config.url).toBe(hooks.url('/welcome'));
    expect(hooks.at('/welcome-v2').map((r) => JSON.parse(r.body).name)).toEqual(['Linus']);
    // Another workspace cannot see or touch it.
    await other.http.get(`/api/v1/flow/${f.uuid}`).expect(404);
    await other.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(404);
    await other.http.get(`/api/v1/flow/${f.uuid}/executions`).expect(404);
    await t.http.get(`/api/v1/flow/${MISSING}`).expect(404);
    await t.http.delete(`/api/v1/flow/${f.uuid}`).expect(200);
  });

  it('a failed step fails the execution; retry resumes at the failed step reusing earlier outputs', async () => {
    hooks.on('/flaky', (_r, n) => ({ status: n === 1 ? 400 : 200, body: '{"ok":true}' }));
    const f = await newFlow('retry');
    await addStep(f.uuid, { kind: 'trigger', trigger_key: 'webhook', config: {} });
    await addStep(f.uuid, webhookStep('/first', { v: '{{step1.body.v}}' }));
    await addStep(f.uuid, webhookStep('/flaky', { prev: '{{step2.status_code}}' }));
    const flow = (await t.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(200)).body.data as Flow;
    const url = new URL(flow.steps[0].config.url as string);
    const hook = await t.http
      .post(url.pathname + '?source=test')
      .send({ v: 7 })
      .expect(202);
    expect(hook.body.execution_uuid).toBeDefined();
    const [failed] = await ended(f.uuid);
    const detail = await execution(f.uuid, failed.uuid);
    expect(detail).toMatchObject({ status: 'failed', error: { code: 'WEBHOOK_FAILED' } });
    expect(detail.trigger.data).toMatchObject({ body: { v: 7 }, query: { source: 'test' } });
    expect(detail.steps.map((s: { status: string }) => s.status)).toEqual([
      'succeeded',
      'succeeded',
      'failed',
    ]);
    const retried = (await t.http.post(`/api/v1/flow/${f.uuid}/executions/${failed.uuid}/retry`).expect(201))
      .body.data;
    expect(retried.retry_of).toBe(failed.uuid);
    const done = await waitFor(
      async () => {
        const e = await execution(f.uuid, retried.uuid);
        return e.status === 'succeeded' ? e : undefined;
      },
      15_000,
      'retry succeeded',
    );
    expect(hooks.at('/first')).toHaveLength(1);
    expect(JSON.parse(hooks.at('/flaky')[1].body)).toEqual({ prev: 200 });
    expect(done.steps[2].status).toBe('succeeded');
    await t.http.post(`/api/v1/flow/${f.uuid}/executions/${retried.uuid}/retry`).expect(409);
    await t.http
      .post(`/hooks/v1/flows/${f.uuid}/${'0'.repeat(32)}`)
      .send({})
      .expect(404);
  });

  it('appointment_created fires; the loop guard stops a flow that creates what triggers it after 3 executions', async () => {
    const type = await createAvailabilityType(t, { duration_minutes: 30 });
    const schedule = await createSchedule(t, { availability_type_uuid: type.uuid });
    const f = await newFlow('loop');
    await addStep(f.uuid, {
      kind: 'trigger',
      trigger_key: 'appointment_created',
      config: { schedule_uuid: schedule.uuid },
    });
    await addStep(f.uuid, {
      kind: 'action',
      action_key: 'create_appointment',
      config: {
        schedule_uuid: schedule.uuid,
        title: 'follow-up',
        start_time: '{{step1.appointment.end_time}}',
      },
    });
    await t.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(200);
    await t.http
      .post('/api/v1/appointments')
      .send({ title: 'first', schedule_uuid: schedule.uuid, start_time: future(30, 9) })
      .expect(201);
    await ended(f.uuid, 3, 20_000);
    // Give a fourth execution every chance to appear before counting.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await executions(f.uuid)).toHaveLength(3);
    const list = (
      await t.http.get(`/api/v1/appointments?schedule_uuid=${schedule.uuid}&per_page=50`).expect(200)
    ).body.data.items;
    expect(list).toHaveLength(4);
  });

  it('a cron tick under a controlled clock runs a schedule flow with fired_at', async () => {
    const clock = app.get<FlowClock>(FlowClock);
    const next = new Date(Math.ceil((Date.now() + 1) / 300_000) * 300_000 + 300_000);
    try {
      const f = await newFlow('cron');
      await addStep(f.uuid, {
        kind: 'trigger',
        trigger_key: 'schedule',
        config: { cron: '*/5 * * * *', timezone: 'Europe/Madrid' },
      });
      await addStep(f.uuid, webhookStep('/cron', { at: '{{step1.fired_at}}' }));
      // The clock stands 4 s before a cron time when the flow goes live: the tick is due 4 s later.
      clock.set(new Date(next.getTime() - 4000));
      await t.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(200);
      const [run] = await ended(f.uuid);
      const detail = await execution(f.uuid, run.uuid);
      expect(new Date(detail.trigger.data.fired_at).getUTCMinutes() % 5).toBe(0);
      expect(JSON.parse(hooks.at('/cron')[0].body).at).toBe(detail.trigger.data.fired_at);
    } finally {
      clock.reset();
    }
  });

  it('inbound_call and call_ended fire from a sandbox inbound call; add_tag and update_contact_field act', async () => {
    const line = await sandboxLine(t);
    const inbound = await newFlow('inbound');
    await addStep(inbound.uuid, {
      kind: 'trigger',
      trigger_key: 'inbound_call',
      config: { agent_uuid: line.agentId },
    });
    await addStep(inbound.uuid, webhookStep('/inbound', { call: '{{step1.call.uuid}}' }));
    await t.http.post(`/api/v1/flow/${inbound.uuid}/deploy`).expect(200);
    const endedFlow = await newFlow('ended');
    await addStep(endedFlow.uuid, {
      kind: 'trigger',
      trigger_key: 'call_ended',
      config: { direction: 'Inbound' },
    });
    await addStep(endedFlow.uuid, webhookStep('/ended', { status: '{{step1.status}}' }));
    await t.http.post(`/api/v1/flow/${endedFlow.uuid}/deploy`).expect(200);
    const call = (
      await t.http
        .post('/api/v1/calls/simulate-inbound')
        .send({ to: line.number, from: sandboxDestination() })
        .expect(201)
    ).body.data;
    await ended(inbound.uuid);
    expect(JSON.parse(hooks.at('/inbound')[0].body)).toEqual({ call: call.uuid });
    await t.http.post(`/api/v1/calls/${call.uuid}/simulate`).send({ action: 'hangup' }).expect(200);
    await ended(endedFlow.uuid);
    expect(JSON.parse(hooks.at('/ended')[0].body).status).toBe('completed');

    const tag = (await t.http.post('/api/v1/contacts/tags').send({ name: 'flowed' }).expect(201)).body.data;
    const f = await newFlow('contact actions');
    await addStep(f.uuid, { kind: 'trigger', trigger_key: 'webhook', config: {} });
    await addStep(f.uuid, {
      kind: 'action',
      action_key: 'add_tag',
      config: { contact_uuid: '{{step1.body.contact}}', tag_uuid: tag.uuid },
    });
    await addStep(f.uuid, {
      kind: 'action',
      action_key: 'update_contact_field',
      config: { contact_uuid: '{{step1.body.contact}}', field: 'surname', value: '{{step1.body.surname}}' },
    });
    const flow = (await t.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(200)).body.data as Flow;
    const contact = await createContact(t, { name: 'Ada' });
    await t.http
      .post(new URL(flow.steps[0].config.url as string).pathname)
      .send({ contact: contact.uuid, surname: 'Lovelace' })
      .expect(202);
    await ended(f.uuid);
    const after = (await t.http.get(`/api/v1/contacts/${contact.uuid}`).expect(200)).body.data;
    expect(after.surname).toBe('Lovelace');
    expect(after.tags.map((x: { uuid: string }) => x.uuid)).toEqual([tag.uuid]);
  });

  it('the catalog lists every trigger and action; a trigger test answers recent matching events', async () => {
    const cat = (await t.http.get('/api/v1/flow/catalog').expect(200)).body.data;
    expect(cat.triggers.map((x: { key: string }) => x.key)).toContain('appointment_created');
    expect(cat.actions.map((x: { key: string }) => x.key)).toContain('send_webhook');
    const f = await newFlow();
    const flow = await addStep(f.uuid, { kind: 'trigger', trigger_key: 'contact_created', config: {} });
    const res = await t.http
      .post(`/api/v1/flow/${f.uuid}/steps/${flow.steps[0].uuid}/test`)
      .send({})
      .expect(200);
    expect(res.body.data.samples.length).toBeGreaterThan(0);
    expect(res.body.data.samples[0].contact.uuid).toBeDefined();
    // No matching event: 404, and still samples (empty) where a match would have put them.
    const none = await addStep((await newFlow('no events')).uuid, {
      kind: 'trigger',
      trigger_key: 'appointment_created',
      config: { schedule_uuid: MISSING },
    });
    const empty = await t.http.post(`/api/v1/flow/${none.uuid}/steps/${none.steps[0].uuid}/test`).send({});
    expect(empty.status).toBe(404);
    expect(empty.body).toMatchObject({
      success: false,
      error: { code: 'RESOURCE_NOT_FOUND' },
      data: { samples: [] },
    });
    const g = await newFlow();
    await other.http
      .post(`/api/v1/flow/${g.uuid}/steps`)
      .send({ kind: 'trigger', trigger_key: 'webhook', config: {} })
      .expect(404);
  });
});
