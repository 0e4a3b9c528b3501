import { AgentViewsRepository } from '@/modules/agents/agent-views.repository';
import { LlmServer } from '../support/llm-server';
import { waitFor } from '../support/wait';
import { createAgentId } from '../factories/agent.factory';
import { useTestApp } from '../setup/suite';

describe('conversation context: memorize and knowledge', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start() },
    env: ({ llm }) => ({ LLM_BASE_URL: llm.url }),
    tenants: ['t'],
  });
  beforeEach(() => suite.llm.reset());

  const agent = () => createAgentId(suite.t, { name: 'Concierge' });

  async function chat(agentId: string, contactId: string, content: string) {
    const c = (
      await suite.t.http
        .post('/api/v1/conversations')
        .send({ agent_uuid: agentId, channel: 'chat', contact_uuid: contactId })
        .expect(201)
    ).body.data.uuid;
    const turn = await suite.t.http.post(`/api/v1/conversations/${c}/messages`).send({ content }).expect(201);
    await suite.t.http.post(`/api/v1/conversations/${c}/close`).expect(200);
    const sessionId = turn.body.data.message.session_uuid as string;
    await waitFor(async () => {
      const s = (await suite.t.http.get(`/api/v1/sessions/${sessionId}/evaluation`).expect(200)).body.data;
      return s.status === 'evaluated' ? s : undefined;
    });
    return sessionId;
  }

  it('puts allowed contact fields and earlier summaries in the reply prompt, and updates read_write fields after a session', async () => {
    await suite.t.http
      .post('/api/v1/contacts/fields')
      .send({ key: 'plan', label: 'Plan', type: 'text' })
      .expect(201);
    const contact = (
      await suite.t.http
        .post('/api/v1/contacts')
        .send({
          name: 'Ada',
          surname: 'Lovelace',
          email: 'ada@example.com',
          phone_number: '+14155552671',
          custom_fields: { plan: 'gold' },
        })
        .expect(201)
    ).body.data;
    const agentId = await agent();
    // Stored values are replaced only where the field's analyzer says so (the default fills empty fields only).
    for (const id of ['b_email', 'f_plan'])
      await suite.t.http
        .put(`/api/v1/analyzers/${id}`)
        .send({ update_behavior: 'automatic_update' })
        .expect(200);
    await suite.t.http
      .put(`/api/v1/agents/${agentId}/memorize`)
      .send({
        is_active: true,
        contact_field_settings: { name: 'read', 'custom_fields.plan': 'read_write', email: 'read_write' },
        conversation_settings: { max_summaries: 2 },
      })
      .expect(200);

    suite.llm.respond = (call) => {
      if (call.kind === 'memorize')
        return {
          content: JSON.stringify({
            email: 'ada@newmail.example',
            name: 'Countess',
            'custom_fields.plan': 'platinum',
          }),
        };
      if (call.kind === 'evaluate' && call.system.includes('report language'))
        return { content: JSON.stringify({ value: 'Ada asked about her plan upgrade.' }) };
      if (call.kind === 'evaluate' && call.system.includes('Write the value'))
        return { content: JSON.stringify({ value: 'Ada asked about her plan upgrade.', reason: 's' }) };
      return { content: call.kind === 'evaluate' ? JSON.stringify({ value: true }) : 'Sure.' };
    };
    await chat(agentId, contact.uuid, 'I want to upgrade my plan, my new email is ada@newmail.example');

    const memorize = suite.llm.callsOf('memorize');
    expect(memorize).toHaveLength(1);
    expect(memorize[0].system).toMatch(
      /only these keys, and only those the customer clearly stated: (email, custom_fields\.plan|custom_fields\.plan, email)\./,
    );
    const updated = (await suite.t.http.get(`/api/v1/contacts/${contact.uuid}`).expect(200)).body.data;
    expect(updated.email).toBe('ada@newmail.example');
    expect(updated.custom_fields.plan).toBe('platinum');
    expect(updated.name).toBe('Ada'); // `name` is read-only in the settings

    suite.llm.reset();
    const c = (
      await suite.t.http
        .post('/api/v1/conversations')
        .send({ agent_uuid: agentId, channel: 'chat', contact_uuid: contact.uuid })
        .expect(201)
    ).body.data.uuid;
    await suite.t.http
      .post(`/api/v1/conversations/${c}/messages`)
      .send({ content: 'Hello again' })
      .expect(201);
    const system = suite.llm.callsOf('reply')[0].system;
    expect(system).toContain('name: Ada');
    expect(system).toContain('custom_fields.plan: platinum');
    expect(system).toContain('email: ada@newmail.example');
    expect(system).not.toContain('Lovelace');
    expect(system).toContain('Earlier conversation: Ada asked about her plan upgrade.');

    // A call's turn gets the same memory (its summaries are read with the call row).
    const number = (
      await suite.t.http
        .post('/api/v1/phone-numbers')
        .send({ number: '+16282007001', provider: 'sandbox', capabilities: { call: true } })
        .expect(201)
    ).body.data.uuid;
    await suite.t.http
      .post(`/api/v1/agents/${agentId}/phone-numbers`)
      .send({ phone_number_uuid: number, channels: ['call'] })
      .expect(201);
    const call = (
      await suite.t.http
        .post('/api/v1/call')
        .send({ agent_uuid: agentId, to: '+14155557777', contact_uuid: contact.uuid })
        .expect(201)
    ).body.data.uuid;
    await waitFor(async () =>
      (await suite.t.http.get(`/api/v1/calls/${call}`)).body.data.status === 'in-progress' ? true : undefined,
    );
    suite.llm.reset();
    await suite.t.http
      .post(`/api/v1/calls/${call}/simulate`)
      .send({ action: 'say', text: 'Hello from the phone' })
      .expect(200);
    const spoken = suite.llm.callsOf('reply')[0].system;
    expect(spoken).toContain('Earlier conversation: Ada asked about her plan upgrade.');
    expect(spoken).toContain('custom_fields.plan: platinum');
  });

  it('leaves memory out when memorize is inactive', async () => {
    const contact = (
      await suite.t.http
        .post('/api/v1/contacts')
        .send({ name: 'Grace', phone_number: '+14155552672' })
        .expect(201)
    ).body.data;
    const agentId = await agent();
    await suite.t.http
      .put(`/api/v1/agents/${agentId}/memorize`)
      .send({ is_active: false, contact_field_settings: { name: 'read_write' } })
      .expect(200);
    await chat(agentId, contact.uuid, 'Hi, I am Grace');
    expect(suite.llm.callsOf('memorize')).toHaveLength(0);
    suite.llm.reset();
    const c = (
      await suite.t.http
        .post('/api/v1/conversations')
        .send({ agent_uuid: agentId, channel: 'chat', contact_uuid: contact.uuid })
        .expect(201)
    ).body.data.uuid;
    await suite.t.http
      .post(`/api/v1/conversations/${c}/messages`)
      .send({ content: 'Hello again' })
      .expect(201);
    expect(suite.llm.callsOf('reply')[0].system).not.toContain('What you remember');
  });

  it("puts the agent's synced knowledge in the reply prompt, and only that agent's, even after turns without any", async () => {
    const agentId = await agent();
    const otherAgent = await agent();
    // Turns before any knowledge: the agent's context is read once and kept (nothing changed between the turns).
    const reads = jest.spyOn(suite.app.get<AgentViewsRepository>(AgentViewsRepository), 'loadWith');
    const early = (
      await suite.t.http
        .post('/api/v1/conversations')
        .send({ agent_uuid: agentId, channel: 'chat' })
        .expect(201)
    ).body.data.uuid;
    for (const content of ['Hello', 'Are you open today?'])
      await suite.t.http.post(`/api/v1/conversations/${early}/messages`).send({ content }).expect(201);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(suite.llm.callsOf('reply')[1].system).not.toContain('open from nine to five');
    reads.mockRestore();
    const source = (
      await suite.t.http
        .post('/api/v1/data/import/copypaste')
        .send({ name: 'Opening hours', data: 'The shop is open from nine to five on weekdays.' })
        .expect(201)
    ).body.data.uuid;
    await waitFor(async () =>
      (await suite.t.http.get(`/api/v1/data/${source}`)).body.data.status === 2 ? true : undefined,
    );
    await suite.t.http
      .post(`/api/v1/data/${source}/assign`)
      .send({ agent_uuid: agentId })
      .expect((r) => expect([200, 201]).toContain(r.status));
    await suite.t.http
      .post(`/api/v1/data/${source}/sync`)
      .expect((r) => expect([200, 201, 202]).toContain(r.status));
    await waitFor(async () =>
      (await suite.t.http.get(`/api/v1/data/${source}`)).body.data.sync_status === 'synced'
        ? true
        : undefined,
    );

    for (const [id, expected] of [
      [agentId, true],
      [otherAgent, false],
    ] as const) {
      suite.llm.reset();
      const c = (
        await suite.t.http.post('/api/v1/conversations').send({ agent_uuid: id, channel: 'chat' }).expect(201)
      ).body.data.uuid;
      await suite.t.http
        .post(`/api/v1/conversations/${c}/messages`)
        .send({ content: 'When is the shop open?' })
        .expect(201);
      const system = suite.llm.callsOf('reply')[0].system;
      expect(system.includes('open from nine to five')).toBe(expected);
      if (expected) expect(system).toContain('(source: Opening hours)');
    }
  });
});
