import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { QUEUES } from '@/common/queue/queues';
import { PURGE_EXECUTIONS_CRON } from '@/modules/flows/jobs/purge-executions.processor';
import { createAgentId, uniqueUsNumber } from '../factories/agent.factory';
import { sandboxDestination } from '../factories/call.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { LlmServer } from '../support/llm-server';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

type Exec = { uuid: string; status: string };
type StepRec = { step_number: number; status: string; attempts: number; started_at: string | null };

jest.setTimeout(60_000);

/** Flows fed by inbound SMS, steps tried again after transient failures, retry from the failed step, retention. */
describe('automation flows: the inbound SMS trigger, step retries, execution retention', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start(), hooks: () => WebhookReceiver.start() },
    env: ({ llm }) => ({ LLM_BASE_URL: llm.url, LLM_MODEL: 'test-model', SANDBOX_ANSWER_DELAY_MS: '100' }),
    tenants: ['t', 'other'],
  });
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let hooks: WebhookReceiver;
  let db: DataSource;

  const deployed = async (
    tenant: TestTenant,
    trigger: Record<string, unknown>,
    actions: Record<string, unknown>[],
  ) => {
    const f = (await tenant.http.post('/api/v1/flows').send({ name: 'retries' }).expect(201)).body.data;
    await tenant.http
      .post(`/api/v1/flow/${f.uuid}/steps`)
      .send({ kind: 'trigger', config: {}, ...trigger })
      .expect(201);
    for (const a of actions)
      await tenant.http
        .post(`/api/v1/flow/${f.uuid}/steps`)
        .send({ kind: 'action', ...a })
        .expect(201);
    return (await tenant.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(200)).body.data as {
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
  const detail = async (flow: string, id: string) =>
    (await t.http.get(`/api/v1/flow/${flow}/executions/${id}`).expect(200)).body.data;
  const endedOne = (flow: string, id?: string, timeoutMs = 20_000) =>
    waitFor(
      async () => {
        const done = (await list(flow)).filter(
          (e) => ['succeeded', 'failed'].includes(e.status) && (!id || e.uuid === id),
        );
        return done[0] ? detail(flow, done[0].uuid) : undefined;
      },
      timeoutMs,
      `an execution of ${flow} ended`,
    );
  const fireWebhook = async (flow: { steps: Array<{ config: Record<string, any> }> }, body: object) =>
    (
      await t.http
        .post(new URL(flow.steps[0].config.url as string).pathname)
        .send(body)
        .expect(202)
    ).body.execution_uuid as string;

  beforeAll(() => {
    ({ app, t, other, hooks } = suite);
    db = app.get<DataSource>(DataSource);
  });

  it('an inbound sandbox SMS fires a message_received flow with the event as webhooks see it', async () => {
    const agentId = await createAgentId(t);
    const number = uniqueUsNumber();
    const numberId = (
      await t.http
        .post('/api/v1/phone-numbers')
        .send({ number, provider: 'sandbox', capabilities: { sms: true } })
        .expect(201)
    ).body.data.uuid;
    await t.http
      .post(`/api/v1/agents/${agentId}/phone-numbers`)
      .send({ phone_number_uuid: numberId, channels: ['sms'] })
      .expect(201);
    const onSms = await deployed(
      t,
      { trigger_key: 'message_received', config: { channels: ['sms'], agent_uuid: agentId } },
      [
        hook('/sms-in', {
          text: '{{step1.message.content}}',
          conversation: '{{step1.conversation_uuid}}',
        }),
      ],
    );
    // A chat-only flow of the same workspace is not fired by SMS.
    const onChat = await deployed(t, { trigger_key: 'message_received', config: { channels: ['chat'] } }, [
      hook('/chat-in'),
    ]);
    const customer = sandboxDestination('1301');
    const sim = await t.http
      .post('/api/v1/sms/simulate-inbound')
      .send({ to: number, from: customer, body: 'Is my parcel on its way?' })
      .expect(201);
    const run = await endedOne(onSms.uuid);
    expect(run).toMatchObject({ status: 'succeeded', trigger: { key: 'message_received' } });
    expect(run.trigger.data.message).toMatchObject({
      uuid: sim.body.data.message.uuid,
      direction: 'inbound',
      content: 'Is my parcel on its way?',
    });
    expect(JSON.parse(hooks.at('/sms-in')[0].body)).toEqual({
      text: 'Is my parcel on its way?',
      conversation: sim.body.data.conversation.uuid,
    });
    // The agent's reply (outbound) fires nothing; nor does the chat-only flow.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await list(onSms.uuid)).toHaveLength(1);
    expect(await list(onChat.uuid)).toHaveLength(0);
    expect(hooks.at('/sms-in')).toHaveLength(1);
  });

  it('a step failing transiently is tried again after 1 s and 4 s, its attempts recorded', async () => {
    hooks.on('/transient', (_r, n) => ({ status: n <= 2 ? 503 : 200, body: '{"ok":true}' }));
    const f = await deployed(t, { trigger_key: 'webhook' }, [
      hook('/before', { v: '{{step1.body.v}}' }),
      hook('/transient', { v: '{{step1.body.v}}' }),
    ]);
    const id = await fireWebhook(f, { v: 1 });
    const run = await endedOne(f.uuid, id);
    expect(run.status).toBe('succeeded');
    const steps = run.steps as StepRec[];
    expect(steps.map((s) => [s.step_number, s.status, s.attempts])).toEqual([
      [1, 'succeeded', 1],
      [2, 'succeeded', 1],
      [3, 'succeeded', 3],
    ]);
    // The same delivery (one webhook-id) three times, about 1 s then 4 s apart; the step before ran once.
    const calls = hooks.at('/transient');
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.headers['webhook-id'])).size).toBe(1);
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(900);
    expect(calls[2].at - calls[1].at).toBeGreaterThanOrEqual(3900);
    expect(hooks.at('/before')).toHaveLength(1);
  });

  it('a step that keeps failing fails after 3 attempts; POST retry resumes at that step with the outputs before', async () => {
    let healthy = false;
    hooks.on('/down', () => ({ status: healthy ? 200 : 502, body: '{"ok":true}' }));
    const f = await deployed(t, { trigger_key: 'webhook' }, [
      hook('/start', { v: '{{step1.body.v}}' }),
      hook('/down', { prev: '{{step2.status_code}}', v: '{{step1.body.v}}' }),
      hook('/after'),
    ]);
    const id = await fireWebhook(f, { v: 'x' });
    const failed = await endedOne(f.uuid, id);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'WEBHOOK_FAILED' } });
    expect((failed.steps as StepRec[]).map((s) => [s.status, s.attempts])).toEqual([
      ['succeeded', 1],
      ['succeeded', 1],
      ['failed', 3],
      ['skipped', 0],
    ]);
    expect(hooks.at('/down')).toHaveLength(3);
    expect(hooks.at('/after')).toHaveLength(0);

    healthy = true;
    const retried = (await t.http.post(`/api/v1/flow/${f.uuid}/executions/${id}/retry`).expect(201)).body
      .data;
    expect(retried).toMatchObject({ retry_of: id, version: failed.version });
    const done = await endedOne(f.uuid, retried.uuid);
    expect(done.status).toBe('succeeded');
    const steps = done.steps as StepRec[];
    expect(steps.map((s) => [s.step_number, s.status, s.attempts])).toEqual([
      [1, 'succeeded', 1],
      [2, 'succeeded', 1],
      [3, 'succeeded', 1],
      [4, 'succeeded', 1],
    ]);
    // Step 2 was not run again: its output (and start time) came from the failed execution.
    expect(hooks.at('/start')).toHaveLength(1);
    expect(steps[1].started_at).toBe((failed.steps as StepRec[])[1].started_at);
    expect(JSON.parse(hooks.at('/down')[3].body)).toEqual({ prev: 200, v: 'x' });
    expect(hooks.at('/after')).toHaveLength(1);
    // Another workspace can neither read nor retry these executions.
    await other.http.get(`/api/v1/flow/${f.uuid}/executions/${id}`).expect(404);
    await other.http.post(`/api/v1/flow/${f.uuid}/executions/${id}/retry`).expect(404);
  });

  it('executions ended more than 30 days ago are purged nightly, in every workspace; live ones stay', async () => {
    const queue = app.get<Queue>(getQueueToken(QUEUES.maintenance));
    expect(await queue.getRepeatableJobs()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'purge-flow-executions', cron: PURGE_EXECUTIONS_CRON }),
      ]),
    );
    const mine = await deployed(t, { trigger_key: 'webhook' }, [hook('/aged')]);
    const theirs = await deployed(other, { trigger_key: 'webhook' }, [hook('/aged')]);
    const row = async (
      tenant: TestTenant,
      flowId: string,
      status: string,
      createdAgo: string,
      finishedAgo: string | null,
    ) => {
      const id = uuidv7();
      await db.query(
        `INSERT INTO flow_executions (id, workspace_id, flow_id, version, status, trigger, chain, created_at,
                                      started_at, finished_at)
         VALUES ($1, $2, $3, 1, $4, '{"key":"webhook","event_uuid":null,"data":{}}', ARRAY[$1]::uuid[],
                 now() - $5::interval, now() - $5::interval,
                 CASE WHEN $6::text IS NULL THEN NULL ELSE now() - $6::interval END)`,
        [id, tenant.workspaceId, flowId, status, createdAgo, finishedAgo],
      );
      return id;
    };
    const oldSucceeded = await row(t, mine.uuid, 'succeeded', '32 days', '31 days');
    const oldFailed = await row(t, mine.uuid, 'failed', '40 days', '39 days');
    const oldCancelled = await row(t, mine.uuid, 'cancelled', '35 days', '35 days');
    const endedRecently = await row(t, mine.uuid, 'failed', '31 days', '29 days');
    const recent = await row(t, mine.uuid, 'succeeded', '1 day', '1 day');
    const stillRunning = await row(t, mine.uuid, 'running', '45 days', null);
    const stillQueued = await row(t, mine.uuid, 'queued', '45 days', null);
    const otherOld = await row(other, theirs.uuid, 'succeeded', '31 days', '31 days');

    const job = await queue.add('purge-flow-executions', { batchSize: 2 });
    expect(((await job.finished()) as { deleted: number }).deleted).toBeGreaterThanOrEqual(4);
    const left = await db.query(
      `SELECT id FROM flow_executions WHERE workspace_id = ANY($1) AND id = ANY($2)`,
      [
        [t.workspaceId, other.workspaceId],
        [oldSucceeded, oldFailed, oldCancelled, endedRecently, recent, stillRunning, stillQueued, otherOld],
      ],
    );
    expect(left.map((r: { id: string }) => r.id).sort()).toEqual(
      [endedRecently, recent, stillRunning, stillQueued].sort(),
    );
    await t.http.get(`/api/v1/flow/${mine.uuid}/executions/${oldSucceeded}`).expect(404);
    const again = await queue.add('purge-flow-executions', {});
    expect(((await again.finished()) as { deleted: number }).deleted).toBeGreaterThanOrEqual(0);
    // Clean up the rows that would otherwise look runnable to the limit's safety net.
    await db.query(`DELETE FROM flow_executions WHERE workspace_id = $1 AND id = ANY($2)`, [
      t.workspaceId,
      [stillRunning, stillQueued],
    ]);
  });
});
