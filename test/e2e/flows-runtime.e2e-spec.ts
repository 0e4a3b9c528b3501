import { DataSource } from 'typeorm';
import { createAgentId, uniqueUsNumber } from '../factories/agent.factory';
import { sandboxDestination } from '../factories/call.factory';
import { createContact } from '../factories/contact.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { LlmServer } from '../support/llm-server';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

type Exec = { uuid: string; status: string };

describe('automation flows at run time: text and evaluation triggers, branches, limits, events and logs', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start(), hooks: () => WebhookReceiver.start() },
    env: ({ llm }) => ({ LLM_BASE_URL: llm.url, LLM_MODEL: 'test-model' }),
    tenants: ['t'],
  });
  let app: TestApp;
  let t: TestTenant;
  let hooks: WebhookReceiver;
  let db: DataSource;

  const deployed = async (trigger: Record<string, unknown>, actions: Record<string, unknown>[]) => {
    const f = (await t.http.post('/api/v1/flows').send({ name: 'runtime' }).expect(201)).body.data;
    const added = await t.http
      .post(`/api/v1/flow/${f.uuid}/steps`)
      .send({ kind: 'trigger', config: {}, ...trigger });
    expect({ status: added.status, body: added.body }).toMatchObject({ status: 201 });
    for (const a of actions) {
      const res = await t.http.post(`/api/v1/flow/${f.uuid}/steps`).send({ kind: 'action', ...a });
      expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
    }
    return (await t.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(200)).body.data as {
      uuid: string;
      steps: Array<{ uuid: string; config: Record<string, any> }>;
    };
  };
  const hook = (path: string, body: unknown = {}) => ({
    action_key: 'send_webhook',
    config: { url: hooks.url(path), body },
  });
  const list = async (flow: string) =>
    (await t.http.get(`/api/v1/flow/${flow}/executions?per_page=100`).expect(200)).body.data.items as Exec[];
  const ended = (flow: string, count = 1, timeoutMs = 20_000) =>
    waitFor(
      async () => {
        const done = (await list(flow)).filter((e) => ['succeeded', 'failed'].includes(e.status));
        return done.length >= count ? done : undefined;
      },
      timeoutMs,
      `${count} executions ended`,
    );
  /** An agent with a sandbox number bound to SMS. */
  const smsAgent = async () => {
    const agentId = await createAgentId(t);
    const number = (
      await t.http
        .post('/api/v1/phone-numbers')
        .send({ number: uniqueUsNumber(), provider: 'sandbox' })
        .expect(201)
    ).body.data.uuid;
    await t.http
      .post(`/api/v1/agents/${agentId}/phone-numbers`)
      .send({ phone_number_uuid: number, channels: ['sms'] })
      .expect(201);
    return agentId;
  };
  const detail = async (flow: string, id: string) =>
    (await t.http.get(`/api/v1/flow/${flow}/executions/${id}`).expect(200)).body.data;

  beforeAll(() => {
    ({ app, t, hooks } = suite);
    db = app.get<DataSource>(DataSource);
  });

  it('message_received and session_evaluated fire from a real chat; a condition runs one branch', async () => {
    const agentId = await createAgentId(t);
    const received = await deployed(
      { trigger_key: 'message_received', config: { channels: ['chat'], contains: 'order' } },
      [
        {
          action_key: 'condition',
          config: { conditions: [{ left: '{{step1.message.content}}', op: 'contains', right: 'refund' }] },
        },
      ],
    );
    const cond = received.steps[1].uuid;
    let r = await t.http
      .post(`/api/v1/flow/${received.uuid}/steps`)
      .send({ kind: 'action', ...hook('/refund'), parent_step_uuid: cond, branch_key: 'true' });
    expect(r.status).toBe(201);
    r = await t.http.post(`/api/v1/flow/${received.uuid}/steps`).send({
      kind: 'action',
      ...hook('/other', { text: 'got {{step1.message.content}}' }),
      parent_step_uuid: cond,
      branch_key: 'false',
    });
    expect(r.status).toBe(201);
    await t.http.post(`/api/v1/flow/${received.uuid}/deploy`).expect(200);
    const evaluated = await deployed(
      {
        trigger_key: 'session_evaluated',
        config: { agent_uuid: agentId, feature: 'success_evaluation_prompt' },
      },
      [hook('/evaluated', { summary: '{{step1.summary}}', session: '{{step1.session.uuid}}' })],
    );

    const conversation = (
      await t.http.post('/api/v1/conversations').send({ agent_uuid: agentId, channel: 'chat' }).expect(201)
    ).body.data.uuid;
    await t.http
      .post(`/api/v1/conversations/${conversation}/messages`)
      .send({ content: 'Hello there' })
      .expect(201);
    await t.http
      .post(`/api/v1/conversations/${conversation}/messages`)
      .send({ content: 'Where is my order?' })
      .expect(201);
    const [run] = await ended(received.uuid);
    expect((await list(received.uuid)).length).toBe(1);
    const d = await detail(received.uuid, run.uuid);
    expect(d.steps.map((s: { status: string }) => s.status)).toEqual([
      'succeeded',
      'succeeded',
      'skipped',
      'succeeded',
    ]);
    expect(d.steps[1].output).toEqual({ result: false });
    expect(hooks.at('/refund')).toHaveLength(0);
    expect(JSON.parse(hooks.at('/other')[0].body)).toEqual({ text: 'got Where is my order?' });

    await t.http.post(`/api/v1/conversations/${conversation}/close`).expect(200);
    await ended(evaluated.uuid);
    const sent = JSON.parse(hooks.at('/evaluated')[0].body);
    expect(sent.summary).toBe('The customer asked a question and got an answer.');
    expect(typeof sent.session).toBe('string');
  });

  it('a send step to a blacklisted number fails BLACKLISTED and sends nothing', async () => {
    const agentId = await smsAgent();
    const phone = sandboxDestination('1202');
    await t.http
      .post('/api/v1/blacklist')
      .send({ phone_number: phone, reason: 'Asked us to stop', is_permanent: true })
      .expect(201);
    const f = await deployed({ trigger_key: 'contact_created' }, [
      {
        action_key: 'send_sms',
        config: { agent_uuid: agentId, to: '{{step1.contact.phone_number}}', body: 'Hi' },
      },
    ]);
    await createContact(t, { name: 'Listed', phone_number: phone });
    const [run] = await ended(f.uuid);
    const d = await detail(f.uuid, run.uuid);
    expect(d).toMatchObject({ status: 'failed', error: { code: 'BLACKLISTED' } });
    const sent = await db.query(
      `SELECT count(*)::int AS n FROM provider_messages WHERE workspace_id = $1 AND to_address = $2`,
      [t.workspaceId, phone],
    );
    expect(sent[0].n).toBe(0);
  });

  it('send_sms goes through messaging; flow_execution reaches workspace webhooks; the action log keeps a row', async () => {
    await t.http
      .post('/api/v1/webhooks')
      .send({ url: hooks.url('/events'), events: ['flow_execution', 'contact_created'] })
      .expect(201);
    const agentId = await smsAgent();
    const f = await deployed({ trigger_key: 'contact_created' }, [
      {
        action_key: 'send_sms',
        config: {
          agent_uuid: agentId,
          to: '{{step1.contact.phone_number}}',
          body: 'Welcome {{step1.contact.name}}',
        },
      },
    ]);
    const phone = sandboxDestination('1201');
    const contact = await createContact(t, { name: 'Port', phone_number: phone });
    const [run] = await ended(f.uuid);
    const d = await detail(f.uuid, run.uuid);
    expect(d).toMatchObject({ status: 'succeeded' });
    const sent = d.steps[1].output as { uuid: string };
    const message = (await t.http.get(`/api/v1/messages/${sent.uuid}`).expect(200)).body.data;
    expect(message).toMatchObject({ to: phone, provider: 'sandbox' });
    const events = await waitFor(
      async () => {
        const got = hooks.at('/events').map((x) => JSON.parse(x.body));
        const ex = got.find((e) => e.type === 'flow_execution' && e.data.execution.uuid === run.uuid);
        const cc = got.find((e) => e.type === 'contact_created' && e.data.contact.uuid === contact.uuid);
        return ex && cc ? { ex, cc } : undefined;
      },
      15_000,
      'flow_execution and contact_created delivered',
    );
    expect(events.ex.data.execution).toMatchObject({ status: 'succeeded', flow_uuid: f.uuid });
    expect(events.ex.data.execution.steps).toBeUndefined();
    const rows = await db.query(
      `SELECT type, name, status, subject_id FROM action_logs WHERE workspace_id = $1 AND subject_id = $2`,
      [t.workspaceId, run.uuid],
    );
    expect(rows).toEqual([{ type: 'workflow', name: 'runtime', status: 'succeeded', subject_id: run.uuid }]);
  });

  it('at most 20 executions run at once per workspace; the others wait and all finish', async () => {
    hooks.on('/slow', () => ({ status: 200, body: '{}', delayMs: 5000 }));
    const f = await deployed({ trigger_key: 'webhook' }, [hook('/slow')]);
    const path = new URL(f.steps[0].config.url as string).pathname;
    await Promise.all(Array.from({ length: 26 }, (_, i) => t.http.post(path).send({ i }).expect(202)));
    const waiting = await waitFor(
      async () => {
        const now = await list(f.uuid);
        const running = now.filter((e) => e.status === 'running').length;
        return running === 20 ? now.filter((e) => e.status === 'queued').length : undefined;
      },
      15_000,
      '20 running',
    );
    expect(waiting).toBeGreaterThan(0);
    await ended(f.uuid, 26, 30_000);
    const arrivals = hooks
      .at('/slow')
      .map((x) => x.at)
      .sort((a, b) => a - b);
    // Each execution sent its webhook once.
    expect(new Set(hooks.at('/slow').map((x) => x.headers['webhook-id'])).size).toBe(26);
    expect(arrivals).toHaveLength(26);
    const overlap = Math.max(...arrivals.map((a) => arrivals.filter((b) => b >= a && b < a + 4900).length));
    expect(overlap).toBeLessThanOrEqual(20);
  });
});
