import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { QUEUES } from '@/common/queue/queues';
import { CallTimers } from '@/modules/calls/runtime/call-timers.service';
import { BlacklistRepository } from '@/modules/blacklist/blacklist.repository';
import { CallLifecycle } from '@/modules/calls/runtime/call-lifecycle.service';
import { AgentViewsRepository } from '@/modules/agents/agent-views.repository';
import { createAgent } from '../factories/agent.factory';
import {
  CallRoute,
  callRoutes,
  requestRoute,
  sandboxDestination,
  sandboxLine,
} from '../factories/call.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { waitFor } from '../support/wait';

const statusOf = async (t: TestTenant, id: string, want: string, timeoutMs = 10_000) =>
  waitFor(
    async () => {
      const res = await t.http.get(`/api/v1/calls/${id}`).expect(200);
      return res.body.data.status === want ? res.body.data : undefined;
    },
    timeoutMs,
    `call ${id} ${want}`,
  );

const messagesOf = async (t: TestTenant, id: string) =>
  (await t.http.get(`/api/v1/conversations/${id}/messages?per_page=100`).expect(200)).body.data.items as {
    sender: string;
    content: string;
    message_type: string;
  }[];

describe('calls: POST /call, records, states, actions, sandbox', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start() },
    env: ({ llm }) => ({ LLM_BASE_URL: llm.url, LLM_MODEL: 'test-model', SANDBOX_ANSWER_DELAY_MS: '100' }),
    tenants: ['t', 'other'],
  });
  let llm: LlmServer;
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let line: { agentId: string; numberId: string; number: string };
  let db: DataSource;

  const place = async (lastFour = '7777', body: Record<string, unknown> = {}) => {
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: sandboxDestination(lastFour), ...body });
    expect(res.status).toBe(201);
    return res.body.data as { uuid: string; status: string };
  };
  const answered = async (body: Record<string, unknown> = {}) => {
    const call = await place('7777', body);
    await statusOf(t, call.uuid, 'in-progress');
    return call.uuid;
  };

  beforeAll(async () => {
    ({ llm, app, t, other } = suite);
    db = app.get<DataSource>(DataSource);
    line = await sandboxLine(t, { settings: { voice: { first_message: 'Hello {{name}}!' } } });
  });

  it('places a sandbox call that answers and says its first message; its uuid is the conversation', async () => {
    const res = await t.http
      .post('/api/v1/call')
      .send({
        agent_uuid: line.agentId,
        to: sandboxDestination(),
        variables: { name: 'Ada' },
        metadata: { ref: 7 },
      })
      .expect(201);
    expect(res.body.message).toBe('Call created successfully');
    const call = res.body.data;
    expect(call).toMatchObject({
      status: 'queued',
      direction: 'Outbound',
      communication: 'phone',
      provider: 'sandbox',
      is_simulation: true,
      handled_by: 'AI',
      from_number: line.number,
      phone_number_uuid: line.numberId,
      variables: { name: 'Ada' },
      metadata: { ref: 7 },
      listen_url: `/api/v1/calls/${call.uuid}/live`,
      agent: { uuid: line.agentId, name: 'Test agent' },
    });
    expect(call.uuid).toBe(call.conversation_uuid);
    expect(call.contact).toMatchObject({ phone_number: call.to_number, name: call.to_number });
    const live = await statusOf(t, call.uuid, 'in-progress');
    expect(live.provider_call_id).toMatch(/^SB[0-9a-f]{32}$/);
    expect(live.answered_at).not.toBeNull();
    const messages = await waitFor(async () => {
      const m = await messagesOf(t, call.uuid);
      return m.length ? m : undefined;
    });
    expect(messages[0]).toMatchObject({ sender: 'agent', content: 'Hello Ada!' });
    const conversation = await t.http.get(`/api/v1/conversations/${call.uuid}`).expect(200);
    expect(conversation.body.data).toMatchObject({ uuid: call.uuid, channel: 'phone', status: 'active' });
    const withSession = await t.http.get(`/api/v1/calls/${call.uuid}`).expect(200);
    expect(withSession.body.data.session_uuid).toEqual(expect.any(String));
    const list = await t.http
      .get(`/api/v1/calls?status=in-progress,ringing&agent_uuid=${line.agentId}`)
      .expect(200);
    expect(list.body.data.items.map((c: { uuid: string }) => c.uuid)).toContain(call.uuid);
    const none = await t.http
      .get('/api/v1/calls?direction=Inbound&phone=' + call.to_number.slice(-7))
      .expect(200);
    expect(none.body.data.items.map((c: { uuid: string }) => c.uuid)).not.toContain(call.uuid);
  });

  it('takes the source product camelCase body; snake_case wins when both are sent', async () => {
    const to = sandboxDestination();
    const res = await t.http
      .post('/api/v1/call')
      .send({
        agentId: line.agentId,
        participant: { number: to, about: 'A returning customer' },
        phoneNumber: line.number,
        prompt: 'Offer the upgrade.',
        message: { start: 'Hi from the alias' },
        first_message: 'Hi from snake case',
      })
      .expect(201);
    expect(res.body.data).toMatchObject({ to_number: to, from_number: line.number, status: 'queued' });
    const row = (
      await db.query(`SELECT first_message, about, prompt FROM calls WHERE id = $1`, [res.body.data.uuid])
    )[0];
    expect(row).toEqual({
      first_message: 'Hi from snake case',
      about: 'A returning customer',
      prompt: { content: 'Offer the upgrade.', overwrite: false },
    });
  });

  it('refuses bad bodies naming the field, paused agents and numbers it cannot call from', async () => {
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ to: sandboxDestination() }, 422, 'VALIDATION_ERROR', 'agent_uuid'],
      [{ agent_uuid: line.agentId }, 422, 'VALIDATION_ERROR', 'to'],
      [{ agent_uuid: line.agentId, to: '+1234' }, 422, 'INVALID_FORMAT', 'to'],
      [
        { agent_uuid: line.agentId, to: sandboxDestination(), variables: { 'bad-key': 'x' } },
        422,
        'INVALID_FORMAT',
        'variables.bad-key',
      ],
      [
        { agent_uuid: line.agentId, to: sandboxDestination(), ring_timeout_seconds: 1 },
        422,
        'INVALID_FORMAT',
        'ring_timeout_seconds',
      ],
      [
        {
          agent_uuid: line.agentId,
          to: sandboxDestination(),
          phone_number_uuid: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b',
        },
        422,
        'VALIDATION_ERROR',
        'phone_number_uuid',
      ],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await t.http.post('/api/v1/call').send(body);
      expect({ status: res.status, code: res.body.error?.code, field: res.body.error?.field }).toEqual({
        status,
        code,
        field,
      });
    }
    const unbound = await t.http.post('/api/v1/agents').send({ name: 'No line' }).expect(201);
    const noLine = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: unbound.body.data.agent_uuid, to: sandboxDestination() });
    expect(noLine.status).toBe(422);
    expect(noLine.body.error.field).toBe('phone_number_uuid');
    const paused = await sandboxLine(t, { status: 'paused' }).catch(() => null);
    if (paused) {
      await t.http.patch(`/api/v1/agents/${paused.agentId}`).send({ status: 'paused' });
      const res = await t.http
        .post('/api/v1/call')
        .send({ agent_uuid: paused.agentId, to: sandboxDestination() });
      expect(res.status).toBe(409);
    }
  });

  it('refuses a blacklisted destination (409 BLACKLISTED) and lets an expired entry through', async () => {
    const blocked = sandboxDestination();
    const expired = sandboxDestination();
    const repo = app.get<BlacklistRepository>(BlacklistRepository);
    await repo.save(t.workspaceId, [
      repo.build(t.workspaceId, {
        phoneNumber: blocked,
        type: 'Phone',
        reason: 'asked',
        source: 'manual',
        isPermanent: true,
        contactId: null,
        email: null,
        expiresAt: null,
      }),
      repo.build(t.workspaceId, {
        phoneNumber: expired,
        type: 'Both',
        reason: 'asked',
        source: 'manual',
        isPermanent: false,
        contactId: null,
        email: null,
        expiresAt: new Date(Date.now() - 1000),
      }),
    ]);
    const res = await t.http.post('/api/v1/call').send({ agent_uuid: line.agentId, to: blocked });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('BLACKLISTED');
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM calls WHERE to_number = $1`, [blocked]))[0].n,
    ).toBe(0);
    await t.http.post('/api/v1/call').send({ agent_uuid: line.agentId, to: expired }).expect(201);
    // Another workspace's entry does not apply here.
    const otherLine = await sandboxLine(other);
    await other.http.post('/api/v1/call').send({ agent_uuid: otherLine.agentId, to: blocked }).expect(201);
  });

  it('one Idempotency-Key sent twice places one call', async () => {
    const to = sandboxDestination();
    const send = () =>
      t.http.post('/api/v1/call').set('Idempotency-Key', `call-${to}`).send({ agent_uuid: line.agentId, to });
    const first = await send().expect(201);
    const second = await send().expect(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.data.uuid).toBe(first.body.data.uuid);
    expect((await db.query(`SELECT count(*)::int AS n FROM calls WHERE to_number = $1`, [to]))[0].n).toBe(1);
  });

  it('unknown call: exactly the short body; malformed: 422; another workspace: 404 on every call path', async () => {
    const unknown = '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b';
    const res = await t.http.get(`/api/v1/calls/${unknown}`).expect(404);
    expect(res.body).toEqual({ success: false, message: 'Call not found', data: [] });
    const bad = await t.http.get('/api/v1/calls/not-a-uuid').expect(422);
    expect(bad.body.error.code).toBe('INVALID_UUID');
    const id = await answered();
    const routes: CallRoute[] = [
      ['get', `/api/v1/calls/${id}`],
      ['get', `/api/v1/conversations/${id}`],
      ...callRoutes(id),
    ];
    for (const route of routes) {
      const r = await requestRoute(other, route);
      expect({ path: route[1], status: r.status }).toEqual({ path: route[1], status: 404 });
    }
    expect(
      (await other.http.get('/api/v1/calls').expect(200)).body.data.items.map(
        (c: { uuid: string }) => c.uuid,
      ),
    ).not.toContain(id);
    // The recording routes answer 404 for the caller's own call too: no adapter stores one yet.
    await t.http.get(`/api/v1/calls/${id}/recording`).expect(404);
    // Nothing of the call moved.
    expect((await t.http.get(`/api/v1/calls/${id}`)).body.data).toMatchObject({
      status: 'in-progress',
      muted: false,
    });
  });

  it('takes each sandbox outcome by the last four digits', async () => {
    const busy = await place('0002');
    const noAnswer = await place('0003');
    const failed = await place('0004');
    expect(await statusOf(t, busy.uuid, 'busy')).toMatchObject({
      end_reason: 'busy',
      duration: 0,
      listen_url: null,
    });
    expect(await statusOf(t, noAnswer.uuid, 'no-answer')).toMatchObject({ end_reason: 'no_answer' });
    expect(await statusOf(t, failed.uuid, 'failed')).toMatchObject({
      end_reason: 'provider_error',
      error: { code: 'SANDBOX_UNREACHABLE' },
    });
    const conv = await t.http.get(`/api/v1/conversations/${busy.uuid}`).expect(200);
    expect(conv.body.data.status).toBe('closed');
  });

  it('a 0009 call rings until simulated; answer, busy, no_answer and fail work on ringing only', async () => {
    const a = await place('0009');
    await statusOf(t, a.uuid, 'ringing');
    const say = await t.http.post(`/api/v1/calls/${a.uuid}/simulate`).send({ action: 'say', text: 'hello' });
    expect(say.status).toBe(409);
    expect(say.body.message).toBe('Call is ringing');
    const ans = await t.http.post(`/api/v1/calls/${a.uuid}/simulate`).send({ action: 'answer' }).expect(200);
    expect(ans.body.data.call.status).toBe('in-progress');
    const again = await t.http.post(`/api/v1/calls/${a.uuid}/simulate`).send({ action: 'busy' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    for (const [action, status, reason] of [
      ['busy', 'busy', 'busy'],
      ['no_answer', 'no-answer', 'no_answer'],
      ['fail', 'failed', 'provider_error'],
      ['hangup', 'canceled', 'canceled'],
    ]) {
      const c = await place('0009');
      await statusOf(t, c.uuid, 'ringing');
      const r = await t.http.post(`/api/v1/calls/${c.uuid}/simulate`).send({ action }).expect(200);
      expect(r.body.data.call).toMatchObject({ status, end_reason: reason });
      const ended = await t.http.post(`/api/v1/calls/${c.uuid}/simulate`).send({ action: 'answer' });
      expect(ended.status).toBe(409);
      expect(ended.body.error.code).toBe('CALL_ENDED');
    }
  });

  it('rings out at ring_timeout_seconds', async () => {
    const c = await place('0009', { ring_timeout_seconds: 5 });
    expect(await statusOf(t, c.uuid, 'no-answer', 12_000)).toMatchObject({ end_reason: 'no_answer' });
  }, 20_000);

  it('runs turns through the pipeline; the customer hanging up ends the call, closes and evaluates once', async () => {
    const id = await answered({ variables: { name: 'Bo' } });
    // The first message is said once the call is answered: the customer speaks after it, as on a real line.
    await waitFor(async () => ((await messagesOf(t, id)).length ? true : undefined));
    llm.reset();
    const turn = await t.http
      .post(`/api/v1/calls/${id}/simulate`)
      .send({ action: 'say', text: 'Where is my order?' })
      .expect(200);
    expect(turn.body.data.message).toMatchObject({ sender: 'customer', content: 'Where is my order?' });
    expect(turn.body.data.reply).toMatchObject({ sender: 'agent', content: 'Hello from the model.' });
    expect(turn.body.data.call.status).toBe('in-progress');
    expect(llm.callsOf('reply')[0].system).toContain('- name: Bo');
    // The next turn's prompt carries the call so far (read with the call row), its own words once, last.
    await t.http
      .post(`/api/v1/calls/${id}/simulate`)
      .send({ action: 'say', text: 'It was due yesterday.' })
      .expect(200);
    const prompt = llm.callsOf('reply')[1].messages.filter((m) => m.role !== 'system');
    expect(prompt.map((m) => [m.role, m.content])).toEqual([
      ['assistant', 'Hello Bo!'],
      ['user', 'Where is my order?'],
      ['assistant', 'Hello from the model.'],
      ['user', 'It was due yesterday.'],
    ]);
    const dtmf = await t.http
      .post(`/api/v1/calls/${id}/simulate`)
      .send({ action: 'dtmf', digits: '12' })
      .expect(200);
    expect(dtmf.body.data.message).toMatchObject({ message_type: 'dtmf', content: '(pressed 1 2)' });
    const hang = await t.http.post(`/api/v1/calls/${id}/simulate`).send({ action: 'hangup' }).expect(200);
    expect(hang.body.data.call).toMatchObject({ status: 'completed', end_reason: 'customer_hangup' });
    expect((await t.http.get(`/api/v1/conversations/${id}`)).body.data.status).toBe('closed');
    const reports = await waitFor(
      async () => {
        const rows = await db.query(
          `SELECT type FROM outbox_events WHERE workspace_id = $1 AND (data->>'conversation_uuid' = $2
              OR data->'conversation'->>'uuid' = $2 OR data->'session'->>'conversation_uuid' = $2
              OR data->>'session_uuid' IN (SELECT id::text FROM sessions WHERE conversation_id = $2::uuid))`,
          [t.workspaceId, id],
        );
        const types = (rows as { type: string }[]).map((r) => r.type);
        return types.includes('conversation_end_report') ? types : undefined;
      },
      15_000,
      'end report',
    );
    expect(reports.filter((x) => x === 'conversation_end_report')).toHaveLength(1);
    expect(reports).toContain('voice_evaluation');
    const statuses = await db.query(
      `SELECT data->>'status' AS status, data->>'previous_status' AS previous FROM outbox_events
        WHERE workspace_id = $1 AND type = 'conversation_status' AND data->>'change' = 'call_status'
          AND data->'call'->>'uuid' = $2 ORDER BY created_at, id`,
      [t.workspaceId, id],
    );
    expect(statuses).toEqual([
      { status: 'queued', previous: null },
      { status: 'ringing', previous: 'queued' },
      { status: 'in-progress', previous: 'ringing' },
      { status: 'completed', previous: 'in-progress' },
    ]);
    const call = (await t.http.get(`/api/v1/calls/${id}`)).body.data;
    expect(call.duration).toBeGreaterThanOrEqual(0);
    expect(
      await waitFor(
        async () => (await t.http.get(`/api/v1/calls/${id}`)).body.data.analysis ?? undefined,
        15_000,
      ),
    ).toEqual(expect.any(String));
  }, 30_000);

  it('a late provider event never moves a call back; it is kept in the provider log', async () => {
    const id = await answered();
    await t.http.post(`/api/v1/calls/${id}/simulate`).send({ action: 'hangup' }).expect(200);
    const lifecycle = app.get<CallLifecycle>(CallLifecycle);
    expect(await lifecycle.providerEvent(t.workspaceId, id, { status: 'in-progress' })).toBeNull();
    expect(await lifecycle.providerEvent(t.workspaceId, id, { status: 'ringing' })).toBeNull();
    expect((await t.http.get(`/api/v1/calls/${id}`)).body.data.status).toBe('completed');
    const [row] = await db.query(`SELECT provider_log FROM calls WHERE id = $1`, [id]);
    expect(row.provider_log.slice(-2).map((e: { status: string }) => e.status)).toEqual([
      'in-progress',
      'ringing',
    ]);
    // A provider event on an answered call that goes backwards is logged and ignored too.
    const live = await answered();
    expect(await lifecycle.providerEvent(t.workspaceId, live, { status: 'ringing' })).toBeNull();
    expect((await t.http.get(`/api/v1/calls/${live}`)).body.data.status).toBe('in-progress');
    // Skipping a lost state forward is applied.
    const skip = await place('0009');
    await statusOf(t, skip.uuid, 'ringing');
    expect((await lifecycle.providerEvent(t.workspaceId, skip.uuid, { status: 'completed' }))?.status).toBe(
      'completed',
    );
  });

  it('live actions: 409 on ringing except hangup, which cancels; mute, say, forward, hangup; CALL_ENDED after', async () => {
    const ringing = await place('0009');
    await statusOf(t, ringing.uuid, 'ringing');
    for (const action of ['say', 'mute', 'unmute', 'forward']) {
      const r = await t.http
        .post(`/api/v1/calls/action/${ringing.uuid}/${action}`)
        .send({ message: 'x', number: '+14155550123' });
      expect({ action, status: r.status, code: r.body.error?.code }).toEqual({
        action,
        status: 409,
        code: 'CONFLICT',
      });
    }
    const cancel = await t.http.post(`/api/v1/calls/action/${ringing.uuid}/hangup`).send({}).expect(200);
    expect(cancel.body.message).toBe('Hangup dispatched');
    expect((await t.http.get(`/api/v1/calls/${ringing.uuid}`)).body.data).toMatchObject({
      status: 'canceled',
      end_reason: 'canceled',
    });

    const id = await answered();
    const mute = await t.http.post(`/api/v1/calls/action/${id}/mute`).expect(200);
    expect(mute.body).toMatchObject({
      message: 'Mute dispatched',
      data: { action: 'mute', conversation_uuid: id, muted: true },
    });
    expect(mute.body.data.action_uuid).toEqual(expect.any(String));
    const muted = await t.http
      .post(`/api/v1/calls/${id}/simulate`)
      .send({ action: 'say', text: 'Anyone there?' })
      .expect(200);
    expect(muted.body.data.reply).toBeNull();
    const say = await t.http
      .post(`/api/v1/calls/action/${id}/say`)
      .send({ message: 'Spoken while muted' })
      .expect(200);
    expect(say.body.message).toBe('Say dispatched');
    await t.http.post(`/api/v1/calls/action/${id}/unmute`).expect(200);
    expect((await t.http.get(`/api/v1/calls/${id}`)).body.data.muted).toBe(false);

    const failedForward = await t.http
      .post(`/api/v1/calls/action/${id}/forward`)
      .send({ number: sandboxDestination('0002') })
      .expect(200);
    expect(failedForward.body.message).toBe('Forward dispatched');
    expect((await t.http.get(`/api/v1/calls/${id}`)).body.data.handled_by).toBe('AI');
    const both = await t.http
      .post(`/api/v1/calls/action/${id}/forward`)
      .send({ number: '+14155550123', agent_uuid: line.agentId });
    expect(both.status).toBe(422);
    const messages = await messagesOf(t, id);
    const contents = messages.map((m) => `${m.sender}:${m.message_type}:${m.content}`);
    expect(contents).toEqual(
      expect.arrayContaining([
        'agent:text:Spoken while muted',
        'agent:text:Transferring your call now.',
        "agent:text:I couldn't connect you, let me keep helping.",
      ]),
    );
    expect(
      messages
        .filter((m) => m.sender === 'system' && m.message_type === 'action')
        .map((m) => JSON.parse(m.content).action),
    ).toEqual(['mute', 'say', 'unmute', 'forward']);

    const hang = await t.http
      .post(`/api/v1/calls/action/${id}/hangup`)
      .send({ message: 'Bye now' })
      .expect(200);
    expect(hang.body.data.action).toBe('hangup');
    expect((await t.http.get(`/api/v1/calls/${id}`)).body.data).toMatchObject({
      status: 'completed',
      end_reason: 'api_hangup',
    });
    for (const action of ['say', 'forward', 'hangup', 'mute', 'unmute']) {
      const r = await t.http
        .post(`/api/v1/calls/action/${id}/${action}`)
        .send({ message: 'x', number: '+14155550123' });
      expect({ action, status: r.status, code: r.body.error?.code, message: r.body.message }).toEqual({
        action,
        status: 409,
        code: 'CALL_ENDED',
        message: 'Call has ended',
      });
    }
  }, 30_000);

  it('forwards to a number (a human takes it) and to another agent (who takes over)', async () => {
    const human = await answered();
    await t.http
      .post(`/api/v1/calls/action/${human}/forward`)
      .send({ number: sandboxDestination('5555') })
      .expect(200);
    const forwarded = (await t.http.get(`/api/v1/calls/${human}`)).body.data;
    expect(forwarded).toMatchObject({
      handled_by: 'Human',
      forwarded_to: { type: 'phone_number', agent_uuid: null },
    });
    const say = await t.http.post(`/api/v1/calls/${human}/simulate`).send({ action: 'say', text: 'hello?' });
    expect(say.status).toBe(409);
    const mute = await t.http.post(`/api/v1/calls/action/${human}/mute`);
    expect(mute.status).toBe(409);
    await t.http.post(`/api/v1/calls/action/${human}/hangup`).send({}).expect(200);

    const other = await t.http.post('/api/v1/agents').send({ name: 'Billing' }).expect(201);
    const id = await answered();
    await t.http
      .post(`/api/v1/calls/action/${id}/forward`)
      .send({ agent_uuid: other.body.data.agent_uuid })
      .expect(200);
    const after = (await t.http.get(`/api/v1/calls/${id}`)).body.data;
    expect(after).toMatchObject({
      handled_by: 'AI',
      agent: { uuid: other.body.data.agent_uuid, name: 'Billing' },
    });
    expect((await t.http.get(`/api/v1/conversations/${id}`)).body.data.agent_uuid).toBe(
      other.body.data.agent_uuid,
    );
  });

  it("keeps a live call's agent between turns and reads it again after any change to the agent or its settings", async () => {
    const kept = await sandboxLine(t, { custom_prompt: 'Speak like a pirate.' });
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: kept.agentId, to: sandboxDestination() })
      .expect(201);
    const id = res.body.data.uuid as string;
    await statusOf(t, id, 'in-progress');
    const reads = jest.spyOn(app.get<AgentViewsRepository>(AgentViewsRepository), 'loadWith');
    const say = async (text: string) => {
      llm.reset();
      const turn = await t.http
        .post(`/api/v1/calls/${id}/simulate`)
        .send({ action: 'say', text })
        .expect(200);
      return { turn: turn.body.data, system: llm.callsOf('reply')[0]?.system ?? '' };
    };
    const version = async () =>
      (
        (await db.query(`SELECT version FROM agent_config_versions WHERE workspace_id = $1`, [
          t.workspaceId,
        ])) as { version: string }[]
      )[0]?.version;
    // Every table the turn context reads moves the version on insert, update and delete.
    const triggers = (await db.query(
      `SELECT DISTINCT event_object_table AS t, event_manipulation AS e FROM information_schema.triggers
        WHERE action_statement LIKE '%bump_agent_config_version%'`,
    )) as { t: string; e: string }[];
    const covered = [
      'agents',
      'agent_notes',
      'agent_training',
      'agent_procedures',
      'agent_intents',
      'agent_webhooks',
      'agent_routing_rules',
      'agent_guard_rules',
      'evaluation_settings',
      'memorize_settings',
      'phone_numbers',
      'phone_number_bindings',
      'messenger_pages',
      'knowledge_index_stats',
      'webhooks',
      'flows',
    ];
    expect(triggers.map((r) => `${r.t} ${r.e}`).sort()).toEqual(
      covered.flatMap((table) => ['DELETE', 'INSERT', 'UPDATE'].map((e) => `${table} ${e}`)).sort(),
    );
    try {
      expect((await say('First question')).system).toContain('Speak like a pirate.');
      let before = reads.mock.calls.length;
      // Nothing changed: the next turns answer from the kept context.
      await say('Second question');
      await say('Third question');
      expect(reads.mock.calls.length).toBe(before);
      // Another workspace's changes leave this one's version (and the kept context) alone.
      const v = await version();
      const stranger = await createAgent(other, {});
      await other.http.patch(`/api/v1/agents/${stranger.agent_uuid}`).send({ name: 'Renamed' }).expect(200);
      await other.http.put('/api/v1/memorize/default').send({ is_active: false }).expect(200);
      expect(await version()).toBe(v);
      await say('Fourth question');
      expect(reads.mock.calls.length).toBe(before);

      // The agent itself.
      await t.http
        .patch(`/api/v1/agents/${kept.agentId}`)
        .send({ custom_prompt: 'Speak like a poet.' })
        .expect(200);
      const afterPatch = await say('Fifth question');
      expect(afterPatch.system).toContain('Speak like a poet.');
      expect(afterPatch.system).not.toContain('pirate');
      expect(reads.mock.calls.length).toBe(before + 1);
      // The workspace defaults of both settings blocks move the version too.
      for (const [path, body] of [
        ['/api/v1/evaluate/default', { report_language: 'es' }],
        ['/api/v1/memorize/default', { is_active: false }],
      ] as const) {
        before = reads.mock.calls.length;
        const was = await version();
        await t.http.put(path).send(body).expect(200);
        expect(await version()).not.toBe(was);
        await say(`After ${path}`);
        expect(reads.mock.calls.length).toBe(before + 1);
      }
      // A collection: a guard rule added during the call acts on the very next turn.
      await t.http
        .post(`/api/v1/agents/${kept.agentId}/guard-rules`)
        .send({
          name: 'Stop',
          when_condition: 'The customer asks to stop calling',
          example_phrases: ['stop calling me'],
          then_action: 'end_conversation',
          say_before_end: 'Understood, goodbye.',
        })
        .expect(201);
      llm.reset();
      llm.respond = (c) =>
        c.kind === 'classify'
          ? {
              content: JSON.stringify({
                scores: [{ id: JSON.parse(c.messages[1].content).candidates[0].id, score: 0.95 }],
              }),
            }
          : defaultAnswer(c);
      const stop = await t.http
        .post(`/api/v1/calls/${id}/simulate`)
        .send({ action: 'say', text: 'stop calling me' })
        .expect(200);
      expect(stop.body.data.action).toMatchObject({ kind: 'guard', type: 'end_conversation' });
      expect(stop.body.data.call).toMatchObject({ status: 'completed', end_reason: 'agent_hangup' });
    } finally {
      reads.mockRestore();
      llm.reset();
      await t.http.put('/api/v1/memorize/default').send({ is_active: true });
    }
  });

  it('a guard end_conversation hangs up as agent_hangup', async () => {
    const guarded = await sandboxLine(t);
    await t.http
      .post(`/api/v1/agents/${guarded.agentId}/guard-rules`)
      .send({
        name: 'Stop',
        when_condition: 'The customer asks to stop calling',
        example_phrases: ['stop calling me'],
        then_action: 'end_conversation',
        say_before_end: 'Sorry, goodbye.',
      })
      .expect(201);
    llm.respond = (call) =>
      call.kind === 'classify'
        ? {
            content: JSON.stringify({
              scores: [{ id: JSON.parse(call.messages[1].content).candidates[0].id, score: 0.95 }],
            }),
          }
        : defaultAnswer(call);
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: guarded.agentId, to: sandboxDestination() })
      .expect(201);
    await statusOf(t, res.body.data.uuid, 'in-progress');
    const turn = await t.http
      .post(`/api/v1/calls/${res.body.data.uuid}/simulate`)
      .send({ action: 'say', text: 'stop calling me' })
      .expect(200);
    expect(turn.body.data.action).toMatchObject({ kind: 'guard', type: 'end_conversation' });
    expect(turn.body.data.call).toMatchObject({ status: 'completed', end_reason: 'agent_hangup' });
    expect((await messagesOf(t, res.body.data.uuid)).map((m) => m.content)).toContain('Sorry, goodbye.');
    llm.reset();
  });

  it('an answered call left alone ends itself at the silence timeout', async () => {
    const quiet = await sandboxLine(t, {
      settings: { voice: { silence_timeout_seconds: 1, end_call_message: 'Bye for now' } },
    });
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: quiet.agentId, to: sandboxDestination() })
      .expect(201);
    const ended = await statusOf(t, res.body.data.uuid, 'completed', 10_000);
    expect(ended.end_reason).toBe('silence_timeout');
    expect((await messagesOf(t, res.body.data.uuid)).map((m) => m.content)).toContain('Bye for now');
  }, 15_000);

  it('max_duration_seconds is a Bull delayed job that ends the answered call as max_duration', async () => {
    const id = await answered({ max_duration_seconds: 30 });
    const queue = app.get<Queue>(getQueueToken(QUEUES.calls));
    // Scheduled right after the answer commits (the call reads in-progress a moment before).
    const job = await waitFor(async () => (await queue.getJob(`max:${id}`)) ?? undefined);
    expect(job.opts.delay).toBe(30_000);
    // The job's body, run now instead of in 30 s.
    await app.get<CallTimers>(CallTimers).maxDuration(t.workspaceId, id);
    expect((await t.http.get(`/api/v1/calls/${id}`)).body.data).toMatchObject({
      status: 'completed',
      end_reason: 'max_duration',
    });
    await job?.remove();
  });

  it('simulate-inbound creates an in-progress inbound call for the bound agent', async () => {
    const res = await t.http
      .post('/api/v1/calls/simulate-inbound')
      .send({ to: line.number, from: '+14155550199' })
      .expect(201);
    expect(res.body.data).toMatchObject({
      direction: 'Inbound',
      status: 'in-progress',
      from_number: '+14155550199',
      to_number: line.number,
    });
    const unknown = await t.http
      .post('/api/v1/calls/simulate-inbound')
      .send({ to: '+14155550188', from: '+14155550199' });
    expect(unknown.status).toBe(422);
    const wa = await t.http
      .post('/api/v1/calls/simulate-inbound')
      .send({ to: line.number, from: '+14155550198', channel: 'whatsapp_call' })
      .expect(201);
    expect(wa.body.data.communication).toBe('whatsapp_call');
  });

  it('GET /analytics/calls reads call records', async () => {
    const agent = await sandboxLine(t);
    const a = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: agent.agentId, to: sandboxDestination() })
      .expect(201);
    await statusOf(t, a.body.data.uuid, 'in-progress');
    await t.http.post(`/api/v1/calls/${a.body.data.uuid}/simulate`).send({ action: 'hangup' }).expect(200);
    const b = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: agent.agentId, to: sandboxDestination('0002') })
      .expect(201);
    await statusOf(t, b.body.data.uuid, 'busy');
    const stats = await t.http.get(`/api/v1/analytics/calls?agent_uuid=${agent.agentId}`).expect(200);
    expect(stats.body.data.totals ?? stats.body.data).toMatchObject({
      count: 2,
      outbound: 2,
      inbound: 0,
      answered: 1,
    });
  });

  it('streams the live feed: status, transcript, action, then end', async () => {
    const id = await answered();
    const events: string[] = [];
    const https = await import('node:https');
    const done = new Promise<void>((resolve, reject) => {
      const req = https.request(
        `${app.url}/api/v1/calls/${id}/live`,
        { headers: { Host: t.host, Authorization: `Bearer ${t.token}` }, rejectUnauthorized: false },
        (res) => {
          expect(res.headers['content-type']).toContain('text/event-stream');
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            for (const m of chunk.matchAll(/^event: (\w+)$/gm)) events.push(m[1]);
          });
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end();
    });
    await waitFor(async () => (events.includes('status') ? true : undefined));
    await t.http.post(`/api/v1/calls/action/${id}/say`).send({ message: 'Live hello' }).expect(200);
    await t.http.post(`/api/v1/calls/${id}/simulate`).send({ action: 'hangup' }).expect(200);
    await done;
    expect(events[0]).toBe('status');
    expect(events).toEqual(expect.arrayContaining(['action', 'transcript']));
    expect(events[events.length - 1]).toBe('end');
    const ended = await t.http
      .get(`/api/v1/calls/${id}/live`)
      .buffer(true)
      .parse((res, cb) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => cb(null, body));
      });
    expect(ended.body).toMatch(/^event: end\ndata: /);
  });
});
