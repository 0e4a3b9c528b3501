import { DataSource } from 'typeorm';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import { ConversationTurnsService } from '@/modules/runtime/public';
import { EvaluationService } from '@/modules/evaluation/evaluation.service';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { TestApp } from '../setup/test-app';
import { LlmServer } from '../support/llm-server';
import { waitFor } from '../support/wait';
import { createAgentId } from '../factories/agent.factory';
import { useTestApp } from '../setup/suite';

const createAgent = (t: TestTenant, body: Record<string, unknown> = {}) =>
  createAgentId(t, { name: 'Support bot', company_name: 'Acme', role: 'Support agent', ...body });

async function openChat(
  t: TestTenant,
  agentId: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await t.http
    .post('/api/v1/conversations')
    .send({ agent_uuid: agentId, channel: 'chat', ...extra })
    .expect(201);
  return res.body.data.uuid as string;
}

async function evaluationOf(t: TestTenant, sessionId: string) {
  return waitFor(
    async () => {
      const res = await t.http.get(`/api/v1/sessions/${sessionId}/evaluation`).expect(200);
      return ['evaluated', 'not_evaluated'].includes(res.body.data.status) ? res.body.data : undefined;
    },
    15_000,
    'session evaluation',
  );
}

describe('conversations, sessions and automatic evaluation', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start() },
    env: ({ llm }) => ({ LLM_BASE_URL: llm.url, LLM_MODEL: 'test-model' }),
    tenants: ['t', 'other'],
  });
  let llm: LlmServer;
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;

  beforeAll(() => {
    ({ llm, app, t, other } = suite);
  });
  beforeEach(() => llm.reset());

  it("gives the model each earlier message once and the turn's own last, though it is read while being written", async () => {
    const agentId = await createAgent(t);
    const conversationId = await openChat(t, agentId);
    for (const content of ['First question', 'Second question', 'Third question'])
      await t.http.post(`/api/v1/conversations/${conversationId}/messages`).send({ content }).expect(201);
    const replies = llm.callsOf('reply');
    expect(replies).toHaveLength(3);
    const turns = (n: number) => replies[n].messages.filter((m) => m.role !== 'system');
    expect(turns(0)).toEqual([{ role: 'user', content: 'First question' }]);
    expect(turns(2)).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'Hello from the model.' },
      { role: 'user', content: 'Second question' },
      { role: 'assistant', content: 'Hello from the model.' },
      { role: 'user', content: 'Third question' },
    ]);
  });

  it('runs a chat end to end: turn, model reply, close, one call per feature, summary, records and events', async () => {
    const agentId = await createAgent(t, { tone: 'warm' });
    await t.http
      .post(`/api/v1/agents/${agentId}/guidelines`)
      .send({ content: 'Always thank the customer.' })
      .expect(201);
    const conversationId = await openChat(t, agentId);

    const turn = await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'Where is my order?' })
      .expect(201);
    expect(turn.body.data.message).toMatchObject({
      direction: 'inbound',
      sender: 'customer',
      content: 'Where is my order?',
    });
    expect(turn.body.data.reply).toMatchObject({
      direction: 'outbound',
      sender: 'agent',
      content: 'Hello from the model.',
    });
    expect(turn.body.data.action).toBeNull();
    expect(turn.body.data.reply_unavailable_reason).toBeNull();
    const reply = llm.callsOf('reply');
    expect(reply).toHaveLength(1);
    expect(reply[0].model).toBe('test-model');
    expect(reply[0].system).toContain('You are Support bot');
    expect(reply[0].system).toContain('Company: Acme');
    expect(reply[0].system).toContain('Tone: warm');
    expect(reply[0].system).toContain('- Always thank the customer.');
    expect(reply[0].messages.at(-1)).toEqual({ role: 'user', content: 'Where is my order?' });

    const sessionId = turn.body.data.message.session_uuid as string;
    const session = (await t.http.get(`/api/v1/sessions/${sessionId}`).expect(200)).body.data;
    expect(session).toMatchObject({
      uuid: sessionId,
      conversation_uuid: conversationId,
      agent_uuid: agentId,
      channel: 'chat',
      status: 'active',
      message_count: 2,
    });

    await t.http.post(`/api/v1/conversations/${conversationId}/close`).expect(200);
    const evaluation = await evaluationOf(t, sessionId);
    expect(evaluation.status).toBe('evaluated');
    expect(evaluation.summary).toBe('The customer asked a question and got an answer.');
    const features = evaluation.records.map((r: { feature: string }) => r.feature).sort();
    expect(features).toEqual(['success_evaluation_prompt', 'summary_prompt']);
    const success = evaluation.records.find(
      (r: { feature: string }) => r.feature === 'success_evaluation_prompt',
    );
    expect(success).toMatchObject({
      type: 'boolean',
      value: true,
      status: 'completed',
      reason: 'goal reached',
      channel: 'chat',
      agent_uuid: agentId,
      conversation_uuid: conversationId,
    });
    expect(success.settings_version).toEqual(expect.any(Number));

    const calls = llm.callsOf('evaluate');
    expect(calls).toHaveLength(2);
    expect(calls.every((c) => c.json)).toBe(true);
    expect(
      calls.every((c) =>
        c.messages[1].content.includes('Customer: Where is my order?\nAgent: Hello from the model.'),
      ),
    ).toBe(true);

    const ended = (await t.http.get(`/api/v1/sessions/${sessionId}`).expect(200)).body.data;
    expect(ended).toMatchObject({ status: 'ended', end_reason: 'closed', summary: evaluation.summary });
    expect(ended.evaluated_at).toEqual(expect.any(String));

    const db = app.get<DataSource>(DataSource);
    // This conversation's events (other tests of the suite share the workspace).
    const events = (
      await db.query(`SELECT type, data FROM outbox_events WHERE workspace_id = $1 ORDER BY created_at, id`, [
        t.workspaceId,
      ])
    ).filter((e: { data: unknown }) => JSON.stringify(e.data).includes(conversationId));
    const types = events.map((e: { type: string }) => e.type);
    expect(types.filter((x: string) => x === 'conversation_status')).toHaveLength(2);
    expect(types.filter((x: string) => x === 'conversation_update')).toHaveLength(2);
    // Each message's event carries the message exactly as the turn answered it (session, time to the millisecond).
    const updates = events.filter((e: { type: string }) => e.type === 'conversation_update');
    expect(updates.map((e: { data: unknown }) => e.data)).toEqual([
      { conversation_uuid: conversationId, message: turn.body.data.message },
      { conversation_uuid: conversationId, message: turn.body.data.reply },
    ]);
    expect(types.filter((x: string) => x === 'text_evaluation')).toHaveLength(1);
    const report = events.find((e: { type: string }) => e.type === 'conversation_end_report');
    expect(report.data.summary).toBe(evaluation.summary);
    expect(report.data.transcript).toHaveLength(2);
    expect(report.data.evaluation).toHaveLength(2);
  });

  it('lists conversations, messages and sessions with filters', async () => {
    const agentId = await createAgent(t);
    const c1 = await openChat(t, agentId);
    await t.http.post(`/api/v1/conversations/${c1}/messages`).send({ content: 'hi' }).expect(201);
    const list = await t.http
      .get(`/api/v1/conversations?agent_uuid=${agentId}&channel=chat&status=active`)
      .expect(200);
    expect(list.body.data.items.map((c: { uuid: string }) => c.uuid)).toEqual([c1]);
    expect(list.body.data.pagination).toEqual({ page: 1, per_page: 20, total: 1, total_pages: 1 });
    const messages = await t.http.get(`/api/v1/conversations/${c1}/messages`).expect(200);
    expect(messages.body.data.items.map((m: { sender: string }) => m.sender)).toEqual(['customer', 'agent']);
    const sessions = await t.http.get(`/api/v1/conversations/${c1}/sessions`).expect(200);
    expect(sessions.body.data.items).toHaveLength(1);
    const byAgent = await t.http.get(`/api/v1/sessions?agent_uuid=${agentId}&status=active`).expect(200);
    expect(byAgent.body.data.items).toHaveLength(1);
    await t.http.get('/api/v1/conversations?status=open').expect(422);
    const bad = await t.http.get('/api/v1/sessions?from=yesterday').expect(422);
    expect(bad.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'from' });
  });

  it('makes no model call and no summary when evaluation is inactive', async () => {
    const agentId = await createAgent(t);
    await t.http.put(`/api/v1/agents/${agentId}/evaluate`).send({ is_active: false }).expect(200);
    const conversationId = await openChat(t, agentId);
    const turn = await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'hello' })
      .expect(201);
    await t.http.post(`/api/v1/conversations/${conversationId}/close`).expect(200);
    const evaluation = await evaluationOf(t, turn.body.data.message.session_uuid);
    expect(evaluation).toMatchObject({
      status: 'not_evaluated',
      summary: null,
      records: [],
      evaluated_at: null,
    });
    expect(llm.callsOf('evaluate')).toHaveLength(0);
  });

  it('uses the agent override over the workspace default, and the voice block for calls', async () => {
    const tenant = await createTenant(app);
    await tenant.http
      .put('/api/v1/evaluate/default')
      .send({
        text: { politeness: { enabled: true, type: 'score', description: 'How polite was the agent?' } },
        voice: {
          summary_prompt: { enabled: false },
          call_outcome: {
            enabled: true,
            type: 'label',
            labels: ['resolved', 'unresolved'],
            description: 'Outcome',
          },
        },
      })
      .expect(200);
    const withDefault = await createAgent(tenant);
    const withOverride = await createAgent(tenant);
    await tenant.http
      .put(`/api/v1/agents/${withOverride}/evaluate`)
      .send({ text: { politeness: { enabled: false }, summary_prompt: { enabled: false } } })
      .expect(200);

    const run = async (agentId: string) => {
      const c = await openChat(tenant, agentId);
      const turn = await tenant.http
        .post(`/api/v1/conversations/${c}/messages`)
        .send({ content: 'thanks' })
        .expect(201);
      await tenant.http.post(`/api/v1/conversations/${c}/close`).expect(200);
      const ev = await evaluationOf(tenant, turn.body.data.message.session_uuid);
      return ev.records.map((r: { feature: string }) => r.feature).sort();
    };
    expect(await run(withDefault)).toEqual(['politeness', 'success_evaluation_prompt', 'summary_prompt']);
    expect(await run(withOverride)).toEqual(['success_evaluation_prompt']);

    // A call (voice channel), driven through the service the calls module uses: the voice block applies.
    const conversations = app.get<ConversationsService>(ConversationsService);
    const turns = app.get<ConversationTurnsService>(ConversationTurnsService);
    const call = await conversations.open(tenant.workspaceId, {
      agentId: withDefault,
      channel: 'phone',
      phone: '+14155552671',
    });
    const turn = await turns.takeTurn(tenant.workspaceId, call.id, 'I need help with my bill');
    await conversations.endCall(tenant.workspaceId, call.id);
    const ev = await evaluationOf(tenant, turn.message.session_uuid!);
    expect(ev.records.map((r: { feature: string }) => r.feature).sort()).toEqual([
      'call_outcome',
      'success_evaluation_prompt',
    ]);
    expect(ev.records.find((r: { feature: string }) => r.feature === 'call_outcome')).toMatchObject({
      type: 'label',
      label: 'resolved',
      value: 'resolved',
    });
    const session = (await tenant.http.get(`/api/v1/sessions/${turn.message.session_uuid}`).expect(200)).body
      .data;
    expect(session).toMatchObject({ channel: 'phone', end_reason: 'call_ended', summary: null });
  });

  it('ends an idle session after the configured timeout and evaluates it', async () => {
    const agentId = await createAgent(t);
    await t.http
      .put(`/api/v1/agents/${agentId}/evaluate`)
      .send({ sessionization: { timeout_minutes: 0.02 } })
      .expect(200);
    const conversationId = await openChat(t, agentId);
    const first = await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'one' })
      .expect(201);
    const sessionId = first.body.data.message.session_uuid;
    await new Promise((r) => setTimeout(r, 600));
    await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'two' })
      .expect(201);
    // Still active at 1.2 s after the first turn, because the second turn moved the idle clock.
    await new Promise((r) => setTimeout(r, 700));
    expect((await t.http.get(`/api/v1/sessions/${sessionId}`).expect(200)).body.data.status).toBe('active');
    const ended = await waitFor(async () => {
      const s = (await t.http.get(`/api/v1/sessions/${sessionId}`).expect(200)).body.data;
      return s.status === 'ended' ? s : undefined;
    });
    expect(ended.end_reason).toBe('timeout');
    expect((await evaluationOf(t, sessionId)).status).toBe('evaluated');
    // The conversation stays open: the next turn opens a new session.
    const next = await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'three' })
      .expect(201);
    expect(next.body.data.message.session_uuid).not.toBe(sessionId);
  });

  it('stores nothing twice when the evaluation runs again', async () => {
    const agentId = await createAgent(t);
    const conversationId = await openChat(t, agentId);
    const turn = await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'hello' })
      .expect(201);
    await t.http.post(`/api/v1/conversations/${conversationId}/close`).expect(200);
    const sessionId = turn.body.data.message.session_uuid;
    await evaluationOf(t, sessionId);
    const before = llm.callsOf('evaluate').length;
    await app.get<EvaluationService>(EvaluationService).evaluateSession(t.workspaceId, sessionId);
    expect(llm.callsOf('evaluate').length).toBe(before);
    const db = app.get<DataSource>(DataSource);
    const [{ count }] = await db.query(
      'SELECT count(*)::int AS count FROM evaluation_records WHERE session_id = $1',
      [sessionId],
    );
    expect(count).toBe(2);
    const [{ reports }] = await db.query(
      `SELECT count(*)::int AS reports FROM outbox_events WHERE type = 'conversation_end_report' AND data->'session'->>'uuid' = $1`,
      [sessionId],
    );
    expect(reports).toBe(1);
  });

  it('records failed evaluations with the reason when the model errs or answers nonsense', async () => {
    const agentId = await createAgent(t);
    llm.respond = (call) =>
      call.kind !== 'evaluate'
        ? { content: 'ok' }
        : call.system.includes('true or false')
          ? { status: 500, raw: JSON.stringify({ error: { message: 'upstream exploded' } }) }
          : { content: 'this is not json' };
    const conversationId = await openChat(t, agentId);
    const turn = await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'hello' })
      .expect(201);
    await t.http.post(`/api/v1/conversations/${conversationId}/close`).expect(200);
    const ev = await evaluationOf(t, turn.body.data.message.session_uuid);
    const byFeature = Object.fromEntries(ev.records.map((r: { feature: string }) => [r.feature, r]));
    expect(byFeature.success_evaluation_prompt).toMatchObject({
      status: 'failed',
      value: null,
      reason: expect.stringContaining('HTTP 500'),
    });
    expect(byFeature.summary_prompt).toMatchObject({
      status: 'failed',
      reason: 'Invalid model answer: the model answer is not JSON',
    });
    expect(ev.summary).toBeNull();
  });

  it('answers a guard rule with its say text and ends the conversation when the guard says so', async () => {
    const agentId = await createAgent(t);
    await t.http
      .post(`/api/v1/agents/${agentId}/guard-rules`)
      .send({
        name: 'Abuse',
        when_condition: 'The customer insults the agent',
        example_phrases: ['you are an idiot', 'you stupid bot'],
        then_action: 'end_conversation',
        say_before_end: 'I am ending this conversation.',
      })
      .expect(201);
    llm.respond = (call) =>
      call.kind === 'classify'
        ? {
            content: JSON.stringify({
              scores: [{ id: JSON.parse(call.messages[1].content).candidates[0].id, score: 0.95 }],
            }),
          }
        : { content: 'should not be used' };
    const conversationId = await openChat(t, agentId);
    const turn = await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'you stupid bot' })
      .expect(201);
    expect(turn.body.data.action).toMatchObject({
      kind: 'guard',
      type: 'end_conversation',
      say: 'I am ending this conversation.',
    });
    expect(turn.body.data.reply).toMatchObject({
      sender: 'agent',
      content: 'I am ending this conversation.',
    });
    expect(turn.body.data.conversation.status).toBe('closed');
    expect(llm.callsOf('reply')).toHaveLength(0);
    const again = await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'hello?' })
      .expect(409);
    expect(again.body.error.code).toBe('CONFLICT');
  });

  it('transfers on an exact routing keyword without asking the model', async () => {
    const agentId = await createAgent(t);
    await t.http
      .post(`/api/v1/agents/${agentId}/routing-rules`)
      .send({
        detection_mode: 'exact',
        trigger_keyword: 'billing',
        department_name: 'Billing',
        destination_type: 'extension',
        destination: '201',
        voice_response: 'Transferring you to billing.',
      })
      .expect(201);
    const conversationId = await openChat(t, agentId);
    const turn = await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'I have a Billing question!' })
      .expect(201);
    expect(turn.body.data.action).toMatchObject({
      kind: 'routing',
      say: 'Transferring you to billing.',
      destination: { type: 'extension', value: '201' },
    });
    expect(llm.callsOf('reply')).toHaveLength(0);
  });

  it('validates bodies and states', async () => {
    const agentId = await createAgent(t);
    const malformed = await t.http
      .post('/api/v1/conversations')
      .send({ agent_uuid: 'x', channel: 'chat' })
      .expect(422);
    expect(malformed.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'agent_uuid' });
    const unknown = await t.http
      .post('/api/v1/conversations')
      .send({ agent_uuid: '0190f3a2-7c1e-7a3b-8c4d-1234567890ab', channel: 'chat' })
      .expect(422);
    expect(unknown.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'agent_uuid' });
    const channel = await t.http
      .post('/api/v1/conversations')
      .send({ agent_uuid: agentId, channel: 'fax' })
      .expect(422);
    expect(channel.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'channel' });
    const missing = await t.http.post('/api/v1/conversations').send({ channel: 'chat' }).expect(422);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'agent_uuid' });
    const contact = await t.http
      .post('/api/v1/conversations')
      .send({ agent_uuid: agentId, channel: 'chat', contact_uuid: '0190f3a2-7c1e-7a3b-8c4d-1234567890ab' })
      .expect(422);
    expect(contact.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'contact_uuid' });
    const conversationId = await openChat(t, agentId);
    const empty = await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: '   ' })
      .expect(422);
    expect(empty.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'content' });
    const closed = await t.http.post(`/api/v1/conversations/${conversationId}/close`).expect(200);
    // Closing creates nothing: the answer says OK, not Created.
    expect(closed.body).toMatchObject({ success: true, message: 'OK', data: { status: 'closed' } });
    const twice = await t.http.post(`/api/v1/conversations/${conversationId}/close`).expect(409);
    expect(twice.body.error.code).toBe('CONFLICT');
    await t.http.get('/api/v1/conversations/not-a-uuid').expect(422);
    await t.http.get('/api/v1/sessions/0190f3a2-7c1e-7a3b-8c4d-1234567890ab').expect(404);
  });

  it("keeps every route to its workspace: another tenant's token gets 404 and empty lists", async () => {
    const agentId = await createAgent(t);
    const conversationId = await openChat(t, agentId);
    const turn = await t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'hello' })
      .expect(201);
    const sessionId = turn.body.data.message.session_uuid;
    await t.http.post(`/api/v1/conversations/${conversationId}/close`).expect(200);
    const ev = await evaluationOf(t, sessionId);
    const recordId = ev.records[0].uuid;

    for (const path of [
      `/api/v1/conversations/${conversationId}`,
      `/api/v1/conversations/${conversationId}/messages`,
      `/api/v1/conversations/${conversationId}/sessions`,
      `/api/v1/sessions/${sessionId}`,
      `/api/v1/sessions/${sessionId}/evaluation`,
      `/api/v1/evaluations/${recordId}`,
    ]) {
      const res = await other.http.get(path).expect(404);
      expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
    await other.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'x' })
      .expect(404);
    await other.http.post(`/api/v1/conversations/${conversationId}/close`).expect(404);
    const opened = await other.http
      .post('/api/v1/conversations')
      .send({ agent_uuid: agentId, channel: 'chat' })
      .expect(422);
    expect(opened.body.error.field).toBe('agent_uuid');
    for (const path of ['/api/v1/conversations', '/api/v1/sessions', '/api/v1/evaluations']) {
      const res = await other.http.get(path).expect(200);
      expect(res.body.data.items).toEqual([]);
    }
    const filtered = await other.http.get(`/api/v1/evaluations?session_uuid=${sessionId}`).expect(200);
    expect(filtered.body.data.items).toEqual([]);
  });
});

describe('conversations without a language model', () => {
  const suite = useTestApp({ tenants: ['t'] });

  it('answers no reply with the reason, and records skipped evaluations', async () => {
    const agentId = await createAgent(suite.t);
    const conversationId = await openChat(suite.t, agentId);
    const turn = await suite.t.http
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .send({ content: 'hello' })
      .expect(201);
    expect(turn.body.data.reply).toBeNull();
    expect(turn.body.data.reply_unavailable_reason).toContain('No language model is configured');
    await suite.t.http.post(`/api/v1/conversations/${conversationId}/close`).expect(200);
    const ev = await evaluationOf(suite.t, turn.body.data.message.session_uuid);
    expect(ev.records).toHaveLength(2);
    expect(
      ev.records.every(
        (r: { status: string; reason: string }) =>
          r.status === 'skipped' && r.reason.includes('No language model'),
      ),
    ).toBe(true);
    expect(ev.summary).toBeNull();
  });
});
