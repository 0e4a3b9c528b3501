import { createHmac } from 'node:crypto';
import { DataSource } from 'typeorm';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { agentWithIntents, deployAction, openChat } from '../factories/intent.factory';
import { createWebhook } from '../factories/webhook.factory';
import { defaultAnswer, LlmAnswer, LlmCall, LlmServer } from '../support/llm-server';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';
import { useTestApp } from '../setup/suite';

type ToolCalls = NonNullable<LlmAnswer['toolCalls']>;

/** The model calls `calls` on the first reply request of a turn and answers `final` once it has tool results. */
function toolThenReply(calls: ToolCalls, final: (call: LlmCall) => string = () => 'Done.') {
  return (call: LlmCall): LlmAnswer => {
    if (call.kind !== 'reply') return defaultAnswer(call);
    return call.messages.some((m) => m.role === 'tool') ? { content: final(call) } : { toolCalls: calls };
  };
}

const toolResults = (call: LlmCall) =>
  call.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content) as Record<string, any>);

const ORDER_INTENT = (url: string) => ({
  name: 'Check order',
  key: 'check_order',
  description: 'The customer asks where their order is',
  recommendation_actions: 'Tell them the delivery date',
  webhook: { url, auth_token: 'tok_secret' },
  parameters: [
    { key: 'order_number', type: 'string', required: true },
    { key: 'priority', type: 'integer', default: '1' },
  ],
});

describe('intents at runtime: tools, actions, records', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start(), hooks: () => WebhookReceiver.start() },
    env: ({ llm }) => ({ LLM_BASE_URL: llm.url, LLM_MODEL: 'test-model', SANDBOX_ANSWER_DELAY_MS: '100' }),
    tenants: ['t', 'other'],
  });
  let db: DataSource;
  beforeAll(() => {
    db = suite.app.get<DataSource>(DataSource);
  });
  beforeEach(() => suite.llm.reset());

  const say = async (conversationId: string, content: string) =>
    (
      await suite.t.http
        .post(`/api/v1/conversations/${conversationId}/messages`)
        .send({ content })
        .expect(201)
    ).body.data;
  const messages = async (conversationId: string) =>
    (await suite.t.http.get(`/api/v1/conversations/${conversationId}/messages?per_page=100`).expect(200)).body
      .data.items as { uuid: string; sender: string; message_type: string; content: string }[];

  it('offers intents as tools; the webhook gets the bearer token and parameters; the result reaches the model and the reply; intent_call, tool message and action log are written', async () => {
    const agent = await agentWithIntents(suite.t, [ORDER_INTENT(suite.hooks.url('/orders'))], {
      name: 'Olivia',
    });
    const agentId = agent.agent_uuid as string;
    await suite.t.http
      .post(`/api/v1/agents/${agentId}/webhooks`)
      .send({ url: suite.hooks.url('/agent-events'), events: ['intent_call'], is_active: true })
      .expect(201);
    await createWebhook(suite.t, {
      url: suite.hooks.url('/workspace-events'),
      events: ['intent_call'],
      is_active: true,
    });
    suite.hooks.on('/orders', () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'shipped', eta: '2026-12-01' }),
    }));
    suite.llm.respond = toolThenReply(
      [{ name: 'check_order', arguments: { order_number: 'A-1001' } }],
      (call) => {
        const [result] = toolResults(call);
        return `Your order is ${result.status}, arriving ${result.eta}.`;
      },
    );

    const conversation = await openChat(suite.t, agentId);
    const turn = await say(conversation, 'Where is my order A-1001?');
    expect(turn.reply.content).toBe('Your order is shipped, arriving 2026-12-01.');
    expect(turn.reply_unavailable_reason).toBeNull();

    // The model saw the intent as a function with a JSON schema.
    const [first, second] = suite.llm.callsOf('reply');
    expect(first.toolChoice).toBe('auto');
    expect(first.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'check_order',
          description: 'The customer asks where their order is Tell them the delivery date',
          parameters: {
            type: 'object',
            properties: { order_number: { type: 'string' }, priority: { type: 'integer' } },
            required: ['order_number'],
          },
        },
      },
    ]);
    // The webhook: bearer token, Standard Webhooks headers, the parameters with defaults filled.
    const [hit] = suite.hooks.at('/orders');
    expect(hit.headers.authorization).toBe('Bearer tok_secret');
    const body = JSON.parse(hit.body);
    expect(body).toEqual({
      intent: { uuid: agent.intents[0].intent_uuid, key: 'check_order', name: 'Check order' },
      parameters: { order_number: 'A-1001', priority: 1 },
      conversation: { uuid: conversation, channel: 'chat' },
      contact: null,
      agent: { uuid: agentId, name: 'Olivia' },
    });
    const id = hit.headers['webhook-id'] as string;
    const ts = hit.headers['webhook-timestamp'] as string;
    const mac = createHmac('sha256', 'tok_secret').update(`${id}.${ts}.${hit.body}`).digest('base64');
    expect(hit.headers['webhook-signature']).toBe(`v1,${mac}`);
    // The result went back to the model as the answer of its call.
    const assistant = second.messages.find((m) => m.role === 'assistant' && m.tool_calls);
    const toolMessage = second.messages.find((m) => m.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe(assistant?.tool_calls?.[0].id);
    expect(JSON.parse(toolMessage!.content)).toEqual({ status: 'shipped', eta: '2026-12-01' });

    // Records: a system tool message, the intent_call event to both webhooks, an action-log row.
    const stored = await messages(conversation);
    const tool = stored.find((m) => m.message_type === 'tool');
    expect(tool).toMatchObject({ sender: 'system' });
    expect(JSON.parse(tool!.content)).toMatchObject({ intent: 'check_order', status: 'succeeded' });
    expect(stored.map((m) => m.sender)).toEqual(['customer', 'system', 'agent']);
    for (const path of ['/agent-events', '/workspace-events']) {
      const event = await waitFor(async () => suite.hooks.at(path)[0], 10_000, `intent_call at ${path}`);
      const payload = JSON.parse(event.body);
      expect(payload.type).toBe('intent_call');
      expect(payload.data).toMatchObject({
        intent: { key: 'check_order' },
        parameters: { order_number: 'A-1001', priority: 1 },
        result: { status: 'shipped' },
        status: 'succeeded',
        duration_ms: expect.any(Number),
        conversation_uuid: conversation,
        message_uuid: tool!.uuid,
      });
    }
    const rows = await db.query(
      `SELECT type, name, status, agent_id, subject_id, response FROM action_logs WHERE workspace_id = $1`,
      [suite.t.workspaceId],
    );
    expect(rows).toEqual([
      {
        type: 'intent',
        name: 'check_order',
        status: 'succeeded',
        agent_id: agentId,
        subject_id: conversation,
        response: { status: 'shipped', eta: '2026-12-01' },
      },
    ]);
  });

  it('says the webhook response as is unless the intent hands it to the model', async () => {
    suite.hooks.on('/said', () => ({
      status: 200,
      body: JSON.stringify({ response: 'Your table is booked for 8 pm.' }),
    }));
    const agent = await agentWithIntents(suite.t, [
      { name: 'Book table', key: 'book_table', webhook: { url: suite.hooks.url('/said') } },
    ]);
    suite.llm.respond = toolThenReply([{ name: 'book_table', arguments: {} }], () => 'The model phrased it.');
    const turn = await say(await openChat(suite.t, agent.agent_uuid), 'Book a table please');
    expect(turn.reply.content).toBe('Your table is booked for 8 pm.');
    expect(suite.llm.callsOf('reply')).toHaveLength(1);
    expect(suite.hooks.at('/said')[0].headers.authorization).toBeUndefined();

    await suite.t.http
      .patch(`/api/v1/agents/${agent.agent_uuid}/intents/${agent.intents[0].intent_uuid}`)
      .send({ intent_llm_handle_by_response: true })
      .expect(200);
    suite.llm.reset();
    suite.llm.respond = toolThenReply([{ name: 'book_table', arguments: {} }], () => 'The model phrased it.');
    const handled = await say(await openChat(suite.t, agent.agent_uuid), 'Book a table please');
    expect(handled.reply.content).toBe('The model phrased it.');
  });

  it('a failing webhook does not fail the turn: the model is told and apologises', async () => {
    suite.hooks.on('/broken', () => ({ status: 500, body: 'boom' }));
    const agent = await agentWithIntents(suite.t, [
      { name: 'Refund', key: 'refund', webhook: { url: suite.hooks.url('/broken') } },
    ]);
    suite.llm.respond = toolThenReply([{ name: 'refund', arguments: {} }], (call) =>
      toolResults(call)[0].error === 'action_failed' ? 'Sorry, I could not do that right now.' : 'ok',
    );
    const conversation = await openChat(suite.t, agent.agent_uuid);
    const turn = await say(conversation, 'I want a refund');
    expect(turn.reply.content).toBe('Sorry, I could not do that right now.');
    const tool = (await messages(conversation)).find((m) => m.message_type === 'tool');
    expect(JSON.parse(tool!.content)).toMatchObject({
      status: 'failed',
      result: { error: 'action_failed', message: 'the webhook answered HTTP 500' },
    });
    // The message export leaves tool messages out unless include_system=true.
    const exported = async (query: string) =>
      (
        (
          await suite.t.http
            .get(`/api/v1/analytics/messages?agent_uuid=${agent.agent_uuid}${query}`)
            .expect(200)
        ).body.messages as { message_type: string }[]
      ).map((m) => m.message_type);
    const all = await waitFor(async () => {
      const types = await exported('&include_system=true');
      return types.length === 3 ? types : undefined;
    });
    expect(all).toEqual(['text', 'tool', 'text']);
    expect(await exported('')).toEqual(['text', 'text']);
    await suite.t.http.get('/api/v1/analytics/messages?include_system=yes').expect(422);
  });

  it('runs a deployed action instead of the intent webhook; a draft does not run', async () => {
    const agent = await agentWithIntents(suite.t, [
      { name: 'Lookup', key: 'lookup', webhook: { url: suite.hooks.url('/own-hook') } },
    ]);
    const intentId = agent.intents[0].intent_uuid as string;
    const path = `/api/v1/agents/${agent.agent_uuid}/intents/${intentId}/event`;
    await suite.t.http.get(path).expect(404);
    const draft = await suite.t.http
      .put(path)
      .send({ type: 'webhook', config: { url: suite.hooks.url('/action-hook'), auth_token: 'act' } })
      .expect(200);
    expect(draft.body.data).toMatchObject({
      intent_uuid: intentId,
      type: 'webhook',
      status: 'draft',
      config: { url: suite.hooks.url('/action-hook'), auth_token: 'act' },
    });
    suite.llm.respond = toolThenReply([{ name: 'lookup', arguments: {} }]);
    await say(await openChat(suite.t, agent.agent_uuid), 'look it up');
    expect(suite.hooks.at('/own-hook')).toHaveLength(1);
    expect(suite.hooks.at('/action-hook')).toHaveLength(0);

    const published = await suite.t.http.post(`${path}/publish`).expect(200);
    expect(published.body.data).toMatchObject({ uuid: draft.body.data.uuid, status: 'deployed' });
    await suite.t.http.post(`${path}/publish`).expect(409);
    expect((await suite.t.http.get(path).expect(200)).body.data.status).toBe('deployed');
    suite.llm.reset();
    suite.llm.respond = toolThenReply([{ name: 'lookup', arguments: {} }]);
    await say(await openChat(suite.t, agent.agent_uuid), 'look it up');
    expect(suite.hooks.at('/action-hook')).toHaveLength(1);
    expect(suite.hooks.at('/action-hook')[0].headers.authorization).toBe('Bearer act');
    expect(suite.hooks.at('/own-hook')).toHaveLength(1);
  });

  it('an agent action hands the conversation over and the receiving agent answers the same turn', async () => {
    const bob = await agentWithIntents(suite.t, [], { name: 'Bob the specialist' });
    const agent = await agentWithIntents(suite.t, [{ name: 'Specialist', key: 'to_specialist' }], {
      name: 'Alice',
    });
    await deployAction(suite.t, agent.agent_uuid, agent.intents[0].intent_uuid, {
      type: 'agent',
      config: { agent_uuid: bob.agent_uuid },
    });
    suite.llm.respond = (call) => {
      if (call.kind !== 'reply') return defaultAnswer(call);
      if (call.system.startsWith('You are Bob')) return { content: 'Bob here, how can I help?' };
      return { toolCalls: [{ name: 'to_specialist', arguments: {} }] };
    };
    const conversation = await openChat(suite.t, agent.agent_uuid);
    const turn = await say(conversation, 'I need a specialist');
    expect(turn.reply.content).toBe('Bob here, how can I help?');
    const [{ agent_id: speaker }] = await db.query(
      `SELECT agent_id FROM messages WHERE workspace_id = $1 AND id = $2`,
      [suite.t.workspaceId, turn.reply.uuid],
    );
    expect(speaker).toBe(bob.agent_uuid);
    expect(turn.action).toMatchObject({
      kind: 'intent',
      type: 'forward',
      rule_uuid: agent.intents[0].intent_uuid,
      destination: { type: 'agent', agent_uuid: bob.agent_uuid },
    });
    expect(turn.conversation.agent_uuid).toBe(bob.agent_uuid);
    const after = (await suite.t.http.get(`/api/v1/conversations/${conversation}`).expect(200)).body.data;
    expect(after.agent_uuid).toBe(bob.agent_uuid);
    const bobCall = suite.llm.callsOf('reply').find((c) => c.system.startsWith('You are Bob'));
    expect(bobCall?.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'I need a specialist',
    ]);
  });

  it('ai_query answers from a data table, searched as it is now', async () => {
    const table = (
      await suite.t.http
        .post('/api/v1/data/tables')
        .send({
          name: 'Products',
          columns: [
            { name: 'name', type: 'text' },
            { name: 'price', type: 'number' },
          ],
        })
        .expect(201)
    ).body.data;
    await suite.t.http
      .post(`/api/v1/data/${table.uuid}/records`)
      .send({
        records: [
          { name: 'Blue widget', price: 10 },
          { name: 'Red gadget', price: 25 },
          { name: 'Green widget deluxe', price: 40 },
        ],
      })
      .expect(201);
    const agent = await agentWithIntents(suite.t, [
      {
        name: 'Products',
        key: 'find_product',
        parameters: [{ key: 'ignored', type: 'string', required: true }],
      },
    ]);
    await deployAction(suite.t, agent.agent_uuid, agent.intents[0].intent_uuid, {
      type: 'app',
      config: {
        app: 'tables',
        action: 'ai_query',
        table_uuid: table.uuid,
        max_results: 2,
        query_description: 'the product the customer asks about',
      },
    });
    suite.llm.respond = toolThenReply(
      [{ name: 'find_product', arguments: { query: 'blue widget' } }],
      (call) => {
        const rows = toolResults(call)[0].rows as { values: { name: string; price: number } }[];
        return rows.map((r) => `${r.values.name}: ${r.values.price}`).join('; ');
      },
    );
    const turn = await say(await openChat(suite.t, agent.agent_uuid), 'How much is the blue widget?');
    const [first, second] = suite.llm.callsOf('reply');
    expect(first.tools?.[0].function.parameters).toEqual({
      type: 'object',
      properties: { query: { type: 'string', description: 'the product the customer asks about' } },
      required: ['query'],
    });
    const [result] = toolResults(second);
    expect(result.rows).toHaveLength(2);
    expect(result.rows[0]).toMatchObject({
      record_uuid: expect.any(String),
      score: expect.any(Number),
      values: { name: 'Blue widget', price: 10 },
    });
    expect(result.rows[1].values.name).toBe('Green widget deluxe');
    expect(turn.reply.content).toBe('Blue widget: 10; Green widget deluxe: 40');
  });

  it('an empty default is no default: the key stays required and a call without it is invalid_parameters', async () => {
    suite.hooks.on('/blank', () => ({ status: 200, body: '{"ok":true}' }));
    const agent = await agentWithIntents(suite.t, [
      {
        name: 'Find order',
        key: 'find_order',
        webhook: { url: suite.hooks.url('/blank') },
        parameters: [
          { key: 'order_number', type: 'string', required: true, default: '' },
          { key: 'note', type: 'string', required: false, default: '  ' },
        ],
      },
    ]);
    suite.llm.respond = toolThenReply([{ name: 'find_order', arguments: {} }]);
    await say(await openChat(suite.t, agent.agent_uuid), 'Where is my order?');
    const [first, second] = suite.llm.callsOf('reply');
    expect(first.tools?.[0].function.parameters).toEqual({
      type: 'object',
      properties: { order_number: { type: 'string' }, note: { type: 'string' } },
      required: ['order_number'],
    });
    expect(toolResults(second)).toEqual([
      { error: 'invalid_parameters', details: ['order_number is required'] },
    ]);
    expect(suite.hooks.at('/blank')).toHaveLength(0);
  });

  it('at most 3 tool calls a turn; a second invalid call withdraws the tool', async () => {
    suite.hooks.on('/count', () => ({ status: 200, body: '{"ok":true}' }));
    const agent = await agentWithIntents(suite.t, [
      {
        name: 'Count',
        key: 'count',
        webhook: { url: suite.hooks.url('/count') },
        parameters: [{ key: 'n', type: 'number', required: true }],
      },
      { name: 'Other', key: 'other', webhook: { url: suite.hooks.url('/count') } },
    ]);
    const before = suite.hooks.at('/count').length;
    suite.llm.respond = (call) => {
      if (call.kind !== 'reply') return defaultAnswer(call);
      if (call.messages.some((m) => m.role === 'tool')) return { content: 'finished' };
      return {
        toolCalls: [
          { name: 'count', arguments: { n: 'x' } },
          { name: 'count', arguments: {} },
          { name: 'other', arguments: {} },
          { name: 'other', arguments: {} },
        ],
      };
    };
    const conversation = await openChat(suite.t, agent.agent_uuid);
    const turn = await say(conversation, 'go');
    expect(turn.reply.content).toBe('finished');
    const results = toolResults(suite.llm.callsOf('reply')[1]);
    expect(results[0]).toEqual({ error: 'invalid_parameters', details: ['n must be a number'] });
    expect(results[1]).toEqual({ error: 'invalid_parameters', details: ['n is required'], withdrawn: true });
    expect(results[2]).toEqual({ ok: true });
    expect(results[3]).toMatchObject({ error: 'skipped_limit' });
    expect(suite.hooks.at('/count').length - before).toBe(1);
    // Past the limit the model is asked without tools.
    expect(suite.llm.callsOf('reply')[1].tools).toBeUndefined();
    const statuses = (await messages(conversation))
      .filter((m) => m.message_type === 'tool')
      .map((m) => JSON.parse(m.content).status);
    expect(statuses).toEqual(['invalid_parameters', 'invalid_parameters', 'succeeded', 'skipped_limit']);
  });

  it('a scenario action starts a deployed flow with the call; a flow not deployed cannot be published', async () => {
    const agent = await agentWithIntents(suite.t, [{ name: 'Start flow', key: 'start_flow' }]);
    const path = `/api/v1/agents/${agent.agent_uuid}/intents/${agent.intents[0].intent_uuid}/event`;
    const missing = '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b';
    await suite.t.http
      .put(path)
      .send({ type: 'scenario', config: { flow_uuid: missing } })
      .expect(200);
    const refused = await suite.t.http.post(`${path}/publish`).expect(409);
    expect(refused.body.error.code).toBe('CONFLICT');
    expect(refused.body.message).toContain(`Flow ${missing}`);
    expect((await suite.t.http.get(path).expect(200)).body.data).toMatchObject({
      type: 'scenario',
      status: 'draft',
    });

    // A deployed flow: its webhook step receives what the intent call carried.
    const flow = (await suite.t.http.post('/api/v1/flows').send({ name: 'From an intent' }).expect(201)).body
      .data;
    await suite.t.http
      .post(`/api/v1/flow/${flow.uuid}/steps`)
      .send({ kind: 'trigger', trigger_key: 'webhook', config: {} })
      .expect(201);
    await suite.t.http
      .post(`/api/v1/flow/${flow.uuid}/steps`)
      .send({
        kind: 'action',
        action_key: 'send_webhook',
        config: { url: suite.hooks.url('/scenario'), body: { order: '{{step1.parameters.order_number}}' } },
      })
      .expect(201);
    await suite.t.http.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200);
    await deployAction(suite.t, agent.agent_uuid, agent.intents[0].intent_uuid, {
      type: 'scenario',
      config: { flow_uuid: flow.uuid },
    });
    suite.llm.respond = toolThenReply([{ name: 'start_flow', arguments: {} }], () => 'Started.');
    const conversation = await openChat(suite.t, agent.agent_uuid);
    const turn = await say(conversation, 'Please start it');
    expect(turn.reply.content).toBe('Started.');
    const result = toolResults(suite.llm.callsOf('reply').at(-1)!)[0];
    expect(result).toMatchObject({ flow_uuid: flow.uuid, execution_uuid: expect.any(String) });
    await waitFor(
      async () => (suite.hooks.at('/scenario').length ? true : undefined),
      20_000,
      'the flow step',
    );
    // A scenario of another workspace's flow is refused like a missing one.
    const foreign = await agentWithIntents(suite.other, [{ name: 'Start flow', key: 'start_flow' }]);
    const foreignPath = `/api/v1/agents/${foreign.agent_uuid}/intents/${foreign.intents[0].intent_uuid}/event`;
    await suite.other.http
      .put(foreignPath)
      .send({ type: 'scenario', config: { flow_uuid: flow.uuid } })
      .expect(200);
    await suite.other.http.post(`${foreignPath}/publish`).expect(409);
  });

  it('checks action bodies: required keys by type, targets in this workspace', async () => {
    const agent = await agentWithIntents(suite.t, [{ name: 'X', key: 'x' }]);
    const foreign = await agentWithIntents(suite.other, [], { name: 'Foreign' });
    const path = `/api/v1/agents/${agent.agent_uuid}/intents/${agent.intents[0].intent_uuid}/event`;
    const missing = await suite.t.http.put(path).send({ type: 'webhook', config: {} }).expect(422);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'config.url' });
    const badType = await suite.t.http.put(path).send({ type: 'email', config: {} }).expect(422);
    expect(badType.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'type' });
    const self = await suite.t.http
      .put(path)
      .send({ type: 'agent', config: { agent_uuid: agent.agent_uuid } });
    expect(self.status).toBe(422);
    const elsewhere = await suite.t.http
      .put(path)
      .send({ type: 'agent', config: { agent_uuid: foreign.agent_uuid } });
    expect(elsewhere.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'config.agent_uuid' });
    const noTable = await suite.t.http
      .put(path)
      .send({ type: 'app', config: { app: 'tables', action: 'ai_query', table_uuid: foreign.agent_uuid } });
    expect(noTable.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'config.table_uuid' });
    const badUuid = await suite.t.http
      .get(`/api/v1/agents/${agent.agent_uuid}/intents/nope/event`)
      .expect(422);
    expect(badUuid.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'intentUuid' });
  });

  it("another workspace's intents are never offered, run or reachable", async () => {
    suite.hooks.on('/foreign', () => ({ status: 200, body: '{"secret":true}' }));
    const foreign = await agentWithIntents(suite.other, [
      { name: 'Foreign secret', key: 'foreign_secret', webhook: { url: suite.hooks.url('/foreign') } },
    ]);
    const foreignIntent = foreign.intents[0].intent_uuid as string;
    await deployAction(suite.other, foreign.agent_uuid, foreignIntent, {
      type: 'webhook',
      config: { url: suite.hooks.url('/foreign') },
    });
    const mine = await agentWithIntents(suite.t, [{ name: 'Mine', key: 'mine' }]);
    // The model tries to call the other workspace's intent by its key.
    suite.llm.respond = toolThenReply([{ name: 'foreign_secret', arguments: {} }], (call) =>
      JSON.stringify(toolResults(call)[0]),
    );
    const turn = await say(await openChat(suite.t, mine.agent_uuid), 'anything');
    const offered = suite.llm.callsOf('reply').flatMap((c) => (c.tools ?? []).map((x) => x.function.name));
    expect(offered).toContain('mine');
    expect(offered).not.toContain('foreign_secret');
    expect(JSON.parse(turn.reply.content)).toEqual({ error: 'unknown_tool' });
    expect(suite.hooks.at('/foreign')).toHaveLength(0);

    // The other workspace's agent and intent answer 404 to this token, whatever the route.
    const path = `/api/v1/agents/${foreign.agent_uuid}/intents/${foreignIntent}/event`;
    for (const res of [
      await suite.t.http.get(path),
      await suite.t.http.put(path).send({ type: 'webhook', config: { url: suite.hooks.url('/x') } }),
      await suite.t.http.post(`${path}/publish`),
      await suite.t.http.get(`/api/v1/agents/${mine.agent_uuid}/intents/${foreignIntent}/event`),
    ])
      expect(res.status).toBe(404);
    const still = (await suite.other.http.get(path).expect(200)).body.data;
    expect(still).toMatchObject({ status: 'deployed', config: { url: suite.hooks.url('/foreign') } });
  });

  it('rules/test tells which intent the model would call, with which parameters, without running it', async () => {
    suite.hooks.on('/dry', () => ({ status: 200, body: '{}' }));
    const agent = await agentWithIntents(suite.t, [ORDER_INTENT(suite.hooks.url('/dry'))]);
    suite.llm.respond = (call) =>
      call.kind === 'reply'
        ? { toolCalls: [{ name: 'check_order', arguments: { order_number: 'B-7' } }] }
        : defaultAnswer(call);
    const res = await suite.t.http
      .post(`/api/v1/agents/${agent.agent_uuid}/rules/test`)
      .send({ utterance: 'where is order B-7', channel: 'phone' })
      .expect(200);
    expect(res.body.data.decision).toBe('none');
    expect(res.body.data.tools).toEqual({
      method: 'llm',
      calls: [
        {
          intent_uuid: agent.intents[0].intent_uuid,
          key: 'check_order',
          name: 'Check order',
          parameters: { order_number: 'B-7', priority: 1 },
          valid: true,
          errors: [],
          score: null,
        },
      ],
      note: null,
    });
    expect(suite.hooks.at('/dry')).toHaveLength(0);
    const rows = await db.query(
      `SELECT count(*)::int AS n FROM action_logs WHERE workspace_id = $1 AND name = $2`,
      [suite.t.workspaceId, 'check_order'],
    );
    expect(rows[0].n).toBe(1); // the first test's call only
  });
  it('the same works in a sandbox call: the tool runs, the reply is said, a hand-over moves the call', async () => {
    suite.hooks.on('/call-orders', () => ({ status: 200, body: JSON.stringify({ status: 'packed' }) }));
    const line = await sandboxLine(suite.t, { name: 'Phone agent' });
    const bob = await agentWithIntents(suite.t, [], { name: 'Bob on the phone' });
    const intents = (
      await suite.t.http
        .put(`/api/v1/agents/${line.agentId}/intents`)
        .send({
          intents: [
            { ...ORDER_INTENT(suite.hooks.url('/call-orders')) },
            { name: 'Colleague', key: 'to_colleague' },
          ],
        })
        .expect(200)
    ).body.data.intents as { key: string; intent_uuid: string }[];
    await deployAction(suite.t, line.agentId, intents.find((i) => i.key === 'to_colleague')!.intent_uuid, {
      type: 'agent',
      config: { agent_uuid: bob.agent_uuid },
    });
    const placed = await suite.t.http
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: sandboxDestination('7777') })
      .expect(201);
    const id = placed.body.data.uuid as string;
    await waitFor(async () => {
      const c = (await suite.t.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;
      return c.status === 'in-progress' ? c : undefined;
    });
    suite.llm.reset();
    suite.llm.respond = toolThenReply(
      [{ name: 'check_order', arguments: { order_number: 'C-3' } }],
      (call) => (call.tools ? `It is ${toolResults(call)[0].status}.` : 'no tools'),
    );
    const turn = await suite.t.http
      .post(`/api/v1/calls/${id}/simulate`)
      .send({ action: 'say', text: 'Where is order C-3?' })
      .expect(200);
    expect(turn.body.data.reply).toMatchObject({ sender: 'agent', content: 'It is packed.' });
    expect(JSON.parse(suite.hooks.at('/call-orders')[0].body)).toMatchObject({
      parameters: { order_number: 'C-3', priority: 1 },
      conversation: { uuid: id, channel: 'phone' },
      contact: { uuid: expect.any(String), phone_number: placed.body.data.to_number },
    });
    expect((await messages(id)).filter((m) => m.message_type === 'tool')).toHaveLength(1);

    suite.llm.reset();
    suite.llm.respond = (call) => {
      if (call.kind !== 'reply') return defaultAnswer(call);
      if (call.system.startsWith('You are Bob')) return { content: 'Bob speaking.' };
      return { toolCalls: [{ name: 'to_colleague', arguments: {} }] };
    };
    const handed = await suite.t.http
      .post(`/api/v1/calls/${id}/simulate`)
      .send({ action: 'say', text: 'Can I talk to a colleague?' })
      .expect(200);
    expect(handed.body.data.reply.content).toBe('Bob speaking.');
    expect(handed.body.data.call).toMatchObject({
      agent: { uuid: bob.agent_uuid },
      forwarded_to: { type: 'agent', agent_uuid: bob.agent_uuid },
      handled_by: 'AI',
    });
    await suite.t.http.post(`/api/v1/calls/${id}/simulate`).send({ action: 'hangup' }).expect(200);
  });
  it('a webhook slower than 10 s is a timeout the model is told about', async () => {
    suite.hooks.on('/slow', () => ({ status: 200, body: '{"late":true}', delayMs: 12_000 }));
    const agent = await agentWithIntents(suite.t, [
      { name: 'Slow', key: 'slow', webhook: { url: suite.hooks.url('/slow') } },
    ]);
    suite.llm.respond = toolThenReply(
      [{ name: 'slow', arguments: {} }],
      (call) => toolResults(call)[0].message,
    );
    const conversation = await openChat(suite.t, agent.agent_uuid);
    const turn = await say(conversation, 'take your time');
    expect(turn.reply.content).toBe('the webhook did not answer within 10 s');
    const tool = (await messages(conversation)).find((m) => m.message_type === 'tool');
    expect(JSON.parse(tool!.content)).toMatchObject({ status: 'timeout' });
  }, 30_000);
});
