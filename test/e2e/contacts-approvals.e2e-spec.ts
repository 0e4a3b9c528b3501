import { DataSource } from 'typeorm';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { MemorizeService } from '@/modules/conversations/memorize.service';
import { createAgentId } from '../factories/agent.factory';
import { sandboxDestination } from '../factories/call.factory';
import { createField, createStage } from '../factories/contact.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { LlmCall, LlmServer } from '../support/llm-server';
import { waitFor } from '../support/wait';

let numberSeq = 0;
const newNumber = () => {
  numberSeq += 1;
  return `+1628${300 + ((process.pid * 19 + numberSeq) % 600)}${String((numberSeq * 41) % 10000).padStart(4, '0')}`;
};

describe('contact approvals, analyzers and contact settings', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start() },
    env: ({ llm }) => ({ LLM_BASE_URL: llm.url, SANDBOX_ANSWER_DELAY_MS: '100' }),
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

  /** One chat session with the contact, closed and evaluated (memorize runs first). */
  async function session(agentId: string, contactId: string, content: string) {
    const conversation = (
      await t.http
        .post('/api/v1/conversations')
        .send({ agent_uuid: agentId, channel: 'chat', contact_uuid: contactId })
        .expect(201)
    ).body.data.uuid as string;
    const turn = await t.http
      .post(`/api/v1/conversations/${conversation}/messages`)
      .send({ content })
      .expect(201);
    await t.http.post(`/api/v1/conversations/${conversation}/close`).expect(200);
    const sessionId = turn.body.data.message.session_uuid as string;
    await waitFor(async () => {
      const s = (await t.http.get(`/api/v1/sessions/${sessionId}/evaluation`).expect(200)).body.data;
      return s.status === 'evaluated' ? s : undefined;
    });
    return { conversation, sessionId };
  }

  const extraction = (values: Record<string, unknown>) => (call: LlmCall) =>
    call.kind === 'memorize'
      ? { content: JSON.stringify(values) }
      : { content: call.kind === 'evaluate' ? '{"value": true}' : 'Sure.' };

  describe('memorize through the analyzers, then approvals', () => {
    let contact: Record<string, any>;
    let sessionId: string;
    let conversation: string;
    const approvals = async (query = '') =>
      (await t.http.get(`/api/v1/contacts/approvals${query}`).expect(200)).body.data;

    beforeAll(async () => {
      for (const key of ['plan', 'company', 'city'])
        await createField(t, { key, label: key[0].toUpperCase() + key.slice(1), type: 'text' });
      await createField(t, { key: 'seats', label: 'Seats', type: 'number' });
      contact = (
        await t.http
          .post('/api/v1/contacts')
          .send({
            name: 'Ada',
            email: 'ada@example.com',
            timezone: 'Europe/London',
            custom_fields: { plan: 'gold', city: 'London' },
          })
          .expect(201)
      ).body.data;
      const behaviors: Record<string, string> = {
        b_email: 'ask_approval_if_existing',
        b_surname: 'ask_approval_if_existing',
        // b_timezone and b_primary_language stay on the default, update_if_empty.
        b_preferred_contact_time: 'dont_update',
        f_plan: 'manual_approval',
        f_company: 'manual_approval',
        f_city: 'automatic_update',
        f_seats: 'automatic_update',
      };
      for (const [id, update_behavior] of Object.entries(behaviors))
        await t.http.put(`/api/v1/analyzers/${id}`).send({ update_behavior }).expect(200);
      await t.http
        .put('/api/v1/analyzers/f_plan')
        .send({
          analysis_goals: 'The subscription plan the customer wants',
          example_values: 'gold, platinum',
        })
        .expect(200);
      const agentId = await createAgentId(t, { name: 'Memory' });
      const writable = [
        'email',
        'surname',
        'timezone',
        'primary_language',
        'preferred_contact_time',
        'custom_fields.plan',
        'custom_fields.company',
        'custom_fields.city',
        'custom_fields.seats',
      ];
      await t.http
        .put(`/api/v1/agents/${agentId}/memorize`)
        .send({
          is_active: true,
          contact_field_settings: Object.fromEntries(writable.map((f) => [f, 'read_write'])),
        })
        .expect(200);
      llm.respond = extraction({
        email: { value: 'ada@newmail.example', confidence: 0.93, reason: 'She gave her new email' },
        surname: { value: 'Lovelace', confidence: 0.9, reason: 'She spelled her surname' },
        timezone: { value: 'Europe/Paris', confidence: 0.7, reason: 'She is in Paris this week' },
        primary_language: 'en',
        preferred_contact_time: 'mornings',
        'custom_fields.plan': { value: 'platinum', confidence: 0.6, reason: 'She asked to upgrade' },
        'custom_fields.company': {
          value: 'Analytical Engines Ltd',
          confidence: 0.3,
          reason: 'Maybe her employer',
        },
        'custom_fields.city': { value: 'Paris', confidence: 0.95, reason: 'She moved' },
        'custom_fields.seats': { value: '12', confidence: 0.9, reason: 'Twelve people' },
        not_asked: 'ignored',
      });
      ({ sessionId, conversation } = await session(
        agentId,
        contact.uuid,
        'Hi, I moved to Paris and want platinum.',
      ));
    });

    it('writes, proposes or skips each value as its analyzer says', async () => {
      const c = (await t.http.get(`/api/v1/contacts/${contact.uuid}`).expect(200)).body.data;
      expect(c.email).toBe('ada@example.com'); // ask_approval_if_existing over a stored value: proposed
      expect(c.surname).toBe('Lovelace'); // ask_approval_if_existing into an empty field: written
      expect(c.timezone).toBe('Europe/London'); // update_if_empty over a stored value: skipped
      expect(c.primary_language).toBe('en'); // update_if_empty into an empty field: written
      expect(c.preferred_contact_time).toBeNull(); // dont_update
      // manual_approval proposed, automatic_update written (the number field's text became a number).
      expect(c.custom_fields).toEqual({ plan: 'gold', city: 'Paris', seats: 12 });

      const page = await approvals(`?contact_uuid=${contact.uuid}`);
      expect(page.pagination.total).toBe(3);
      const byField = Object.fromEntries(page.items.map((a: any) => [a.field_name, a]));
      expect(Object.keys(byField).sort()).toEqual(['custom_fields.company', 'custom_fields.plan', 'email']);
      expect(byField.email).toEqual({
        uuid: expect.any(String),
        contact_uuid: contact.uuid,
        conversation_uuid: conversation,
        session_uuid: sessionId,
        field_name: 'email',
        current_value: 'ada@example.com',
        proposed_value: 'ada@newmail.example',
        confidence: 0.93,
        reason: 'She gave her new email',
        status: 'Pending',
        decided_at: null,
        applied_value: null,
        rejection_reason: null,
        created_at: expect.any(String),
      });
      expect(byField['custom_fields.company']).toMatchObject({ current_value: null, confidence: 0.3 });
      const one = await t.http.get(`/api/v1/contacts/approvals/${byField.email.uuid}`).expect(200);
      expect(one.body.data).toEqual(byField.email);
    });

    it('filters by status, field, confidence, conversation and search', async () => {
      const fields = async (q: string) =>
        ((await approvals(`?contact_uuid=${contact.uuid}&${q}`)).items as any[])
          .map((a) => a.field_name)
          .sort();
      expect(await fields('status=Pending')).toHaveLength(3);
      expect(await fields('status=Approved')).toEqual([]);
      expect(await fields('field_name=email')).toEqual(['email']);
      expect(await fields('field_key=plan')).toEqual(['custom_fields.plan']);
      expect(await fields('confidence=high')).toEqual(['email']);
      expect(await fields('confidence=medium')).toEqual(['custom_fields.plan']);
      expect(await fields('confidence=low')).toEqual(['custom_fields.company']);
      expect(await fields(`conversation_uuid=${conversation}`)).toHaveLength(3);
      expect(await fields('search=ENGINES')).toEqual(['custom_fields.company']);
      expect(await fields('search=upgrade')).toEqual(['custom_fields.plan']);
      const bad = await t.http.get('/api/v1/contacts/approvals?confidence=certain');
      expect(bad.status).toBe(422);
      expect(bad.body.error.field).toBe('confidence');
      expect((await t.http.get('/api/v1/contacts/approvals?status=Done')).status).toBe(422);
      expect((await t.http.get('/api/v1/contacts/approvals?contact_uuid=nope')).status).toBe(422);
    });

    it('a second run of memorize for the session adds nothing', async () => {
      const memorize = app.get<MemorizeService>(MemorizeService);
      expect(await memorize.afterSession(t.workspaceId, sessionId)).toBeNull();
      // Even when the session is no longer marked memorized, the same proposals are not made again.
      const db = app.get<DataSource>(DataSource);
      await db.query(`UPDATE sessions SET memorized_at = NULL WHERE id = $1`, [sessionId]);
      llm.respond = extraction({
        email: { value: 'ada@newmail.example', confidence: 0.93, reason: 'again' },
        'custom_fields.plan': 'platinum',
      });
      await memorize.afterSession(t.workspaceId, sessionId);
      expect(llm.callsOf('memorize')).toHaveLength(1);
      const page = await approvals(`?contact_uuid=${contact.uuid}`);
      expect(page.pagination.total).toBe(3);
      expect(page.items.find((a: any) => a.field_name === 'email').reason).toBe('She gave her new email');
    });

    it('approve writes the value (edited values are checked, 422 on value changes nothing); a second approve is 409', async () => {
      const items = (await approvals(`?contact_uuid=${contact.uuid}`)).items as any[];
      const email = items.find((a) => a.field_name === 'email');
      const company = items.find((a) => a.field_name === 'custom_fields.company');

      const invalid = await t.http
        .post(`/api/v1/contacts/approvals/${email.uuid}/approve`)
        .send({ value: 'not-an-email' });
      expect(invalid.status).toBe(422);
      expect(invalid.body.error.field).toBe('value');
      expect(invalid.body.message).toMatch(/email/);
      const notScalar = await t.http
        .post(`/api/v1/contacts/approvals/${email.uuid}/approve`)
        .send({ value: { a: 1 } });
      expect(notScalar.status).toBe(422);
      expect(notScalar.body.error.field).toBe('value');
      expect((await t.http.get(`/api/v1/contacts/approvals/${email.uuid}`)).body.data.status).toBe('Pending');
      expect((await t.http.get(`/api/v1/contacts/${contact.uuid}`)).body.data.email).toBe('ada@example.com');

      const edited = await t.http
        .post(`/api/v1/contacts/approvals/${email.uuid}/approve`)
        .send({ value: 'ada@edited.example' });
      expect(edited.status).toBe(200);
      expect(edited.body.message).toBe('Approval approved');
      expect(edited.body.data).toMatchObject({
        status: 'Approved',
        proposed_value: 'ada@newmail.example',
        applied_value: 'ada@edited.example',
        decided_at: expect.any(String),
      });
      expect((await t.http.get(`/api/v1/contacts/${contact.uuid}`)).body.data.email).toBe(
        'ada@edited.example',
      );
      const again = await t.http.post(`/api/v1/contacts/approvals/${email.uuid}/approve`).send({});
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('CONFLICT');
      expect((await t.http.post(`/api/v1/contacts/approvals/${email.uuid}/reject`).send({})).status).toBe(
        409,
      );

      // No value: the proposed one is written. Two approvals at once: one wins, the other is 409.
      const raced = await Promise.all(
        [0, 1].map(() => t.http.post(`/api/v1/contacts/approvals/${company.uuid}/approve`).send({})),
      );
      expect(raced.map((r) => r.status).sort()).toEqual([200, 409]);
      const proposed = raced.find((r) => r.status === 200)!;
      expect(proposed.body.data.applied_value).toBe('Analytical Engines Ltd');
      const c = (await t.http.get(`/api/v1/contacts/${contact.uuid}`)).body.data;
      expect(c.custom_fields.company).toBe('Analytical Engines Ltd');
      expect((await t.http.post(`/api/v1/contacts/approvals/${company.uuid}/approve`).send({})).status).toBe(
        409,
      );
    });

    it('reject keeps the stored value and records the reason; then approve is 409', async () => {
      const plan = ((await approvals(`?field_key=plan&contact_uuid=${contact.uuid}`)).items as any[])[0];
      const tooLong = await t.http
        .post(`/api/v1/contacts/approvals/${plan.uuid}/reject`)
        .send({ reason: 'x'.repeat(1001) });
      expect(tooLong.status).toBe(422);
      const res = await t.http
        .post(`/api/v1/contacts/approvals/${plan.uuid}/reject`)
        .send({ reason: 'Only asked about it' })
        .expect(200);
      expect(res.body.message).toBe('Approval rejected');
      expect(res.body.data).toMatchObject({
        status: 'Rejected',
        rejection_reason: 'Only asked about it',
        applied_value: null,
        decided_at: expect.any(String),
      });
      expect((await t.http.get(`/api/v1/contacts/${contact.uuid}`)).body.data.custom_fields.plan).toBe(
        'gold',
      );
      expect((await t.http.post(`/api/v1/contacts/approvals/${plan.uuid}/approve`).send({})).status).toBe(
        409,
      );
      expect((await t.http.post(`/api/v1/contacts/approvals/${plan.uuid}/reject`).send({})).status).toBe(409);
      const statuses = (await approvals(`?contact_uuid=${contact.uuid}&status=Rejected`)).items as any[];
      expect(statuses.map((a) => a.uuid)).toEqual([plan.uuid]);
    });

    it('another workspace cannot read, list, approve or reject the approvals', async () => {
      const items = (await approvals(`?contact_uuid=${contact.uuid}`)).items as any[];
      const plan = items.find((a) => a.field_name === 'custom_fields.plan');
      expect((await other.http.get(`/api/v1/contacts/approvals/${plan.uuid}`)).status).toBe(404);
      expect((await other.http.post(`/api/v1/contacts/approvals/${plan.uuid}/approve`).send({})).status).toBe(
        404,
      );
      expect((await other.http.post(`/api/v1/contacts/approvals/${plan.uuid}/reject`).send({})).status).toBe(
        404,
      );
      const list = (
        await other.http.get(`/api/v1/contacts/approvals?contact_uuid=${contact.uuid}`).expect(200)
      ).body.data;
      expect(list.pagination.total).toBe(0);
      expect((await other.http.get('/api/v1/contacts/approvals').expect(200)).body.data.items).toEqual([]);
    });
  });

  it('the extraction prompt names the fields asked, with goals and examples, and leaves dont_update fields out', async () => {
    const tenant = await createTenant(app);
    await createField(tenant, { key: 'pet', label: 'Pet', type: 'text' });
    await tenant.http
      .put('/api/v1/analyzers/f_pet')
      .send({ analysis_goals: "The customer's pet", example_values: 'cat, dog' })
      .expect(200);
    await tenant.http.put('/api/v1/analyzers/b_surname').send({ update_behavior: 'dont_update' }).expect(200);
    const contact = (await tenant.http.post('/api/v1/contacts').send({ name: 'Grace' }).expect(201)).body
      .data;
    const agentId = await createAgentId(tenant, { name: 'Prompted' });
    await tenant.http
      .put(`/api/v1/agents/${agentId}/memorize`)
      .send({
        is_active: true,
        contact_field_settings: {
          email: 'read_write',
          surname: 'read_write',
          'custom_fields.pet': 'read_write',
        },
      })
      .expect(200);
    llm.respond = extraction({ 'custom_fields.pet': 'cat', surname: 'Hopper' });
    const c = (
      await tenant.http
        .post('/api/v1/conversations')
        .send({ agent_uuid: agentId, channel: 'chat', contact_uuid: contact.uuid })
        .expect(201)
    ).body.data.uuid;
    const turn = await tenant.http
      .post(`/api/v1/conversations/${c}/messages`)
      .send({ content: 'My cat' })
      .expect(201);
    await tenant.http.post(`/api/v1/conversations/${c}/close`).expect(200);
    const sessionId = turn.body.data.message.session_uuid;
    await waitFor(async () =>
      (await tenant.http.get(`/api/v1/sessions/${sessionId}/evaluation`)).body.data.status === 'evaluated'
        ? true
        : undefined,
    );
    const [call] = llm.callsOf('memorize');
    expect(call.system).toContain('clearly stated: email, custom_fields.pet.');
    expect(call.system).toContain("- custom_fields.pet: The customer's pet (for example: cat, dog)");
    expect(call.system).toContain('- email: An email address the customer gives as theirs');
    expect(call.system).not.toContain('surname');
    const after = (await tenant.http.get(`/api/v1/contacts/${contact.uuid}`)).body.data;
    expect(after.custom_fields.pet).toBe('cat');
    expect(after.surname).toBeNull();
  });

  describe('memorize moves contacts between pipeline stages through the stage analyzers', () => {
    let tenant: TestTenant;
    let agentId: string;
    const stage: Record<string, string> = {};
    let foreignStage: string;
    const contacts: Record<string, string> = {};
    const sessions: Record<string, string> = {};
    /** The model's stage answer for each customer, found by the customer's message. */
    const answers: Record<string, unknown> = {};
    let memorizeCalls: LlmCall[] = [];
    const contactOf = async (id: string) =>
      (await tenant.http.get(`/api/v1/contacts/${id}`).expect(200)).body.data;
    const approvalsOf = async (contactId: string) =>
      (await tenant.http.get(`/api/v1/contacts/approvals?contact_uuid=${contactId}`).expect(200)).body.data
        .items as any[];

    async function endSession(contactId: string, content: string) {
      const c = (
        await tenant.http
          .post('/api/v1/conversations')
          .send({ agent_uuid: agentId, channel: 'chat', contact_uuid: contactId })
          .expect(201)
      ).body.data.uuid;
      const turn = await tenant.http
        .post(`/api/v1/conversations/${c}/messages`)
        .send({ content })
        .expect(201);
      await tenant.http.post(`/api/v1/conversations/${c}/close`).expect(200);
      const sessionId = turn.body.data.message.session_uuid as string;
      await waitFor(async () =>
        (await tenant.http.get(`/api/v1/sessions/${sessionId}/evaluation`)).body.data.status === 'evaluated'
          ? true
          : undefined,
      );
      return sessionId;
    }

    beforeAll(async () => {
      llm.reset();
      tenant = await createTenant(app);
      const behaviors: [string, string, string | null][] = [
        ['New', 'update_if_empty', 'The customer made first contact'],
        ['Qualified', 'automatic_update', 'The customer has a budget and a need'],
        ['Demo', 'manual_approval', 'The customer booked a demo'],
        ['Negotiation', 'ask_approval_if_existing', null],
        ['Closed', 'dont_update', 'The customer signed'],
        ['Trial', 'manual_approval', null],
      ];
      for (const [name, update_behavior, analysis_goals] of behaviors) {
        stage[name] = (await createStage(tenant, { name })).uuid;
        await tenant.http
          .put(`/api/v1/analyzers/p_${stage[name]}`)
          .send({ update_behavior, analysis_goals })
          .expect(200);
      }
      foreignStage = (await createStage(other, { name: 'Qualified' })).uuid;
      agentId = await createAgentId(tenant, { name: 'Pipeline' });
      await tenant.http
        .put(`/api/v1/agents/${agentId}/memorize`)
        .send({ is_active: true, contact_field_settings: { pipeline_stage: 'read_write' } })
        .expect(200);
      const made = async (key: string, stageName?: string) => {
        contacts[key] = (
          await tenant.http
            .post('/api/v1/contacts')
            .send({ name: key, ...(stageName ? { pipeline_stage_uuid: stage[stageName] } : {}) })
            .expect(201)
        ).body.data.uuid;
      };
      // Customer → [stage now, what the model answers].
      const cases: Record<string, [string | undefined, unknown]> = {
        empty_new: [undefined, { value: stage.New, confidence: 0.7, reason: 'First contact' }],
        kept_qualified: ['Qualified', { value: stage.New, confidence: 0.9, reason: 'Started over' }],
        auto_qualified: ['New', { value: stage.Qualified, confidence: 0.85, reason: 'Has a budget' }],
        proposed_demo: ['Qualified', { value: stage.Demo, confidence: 0.9, reason: 'Booked a demo' }],
        empty_negotiation: [undefined, { value: stage.Negotiation, confidence: 0.6, reason: 'Talks price' }],
        asked_negotiation: ['New', { value: stage.Negotiation, confidence: 0.55, reason: 'Talks price' }],
        never_closed: ['Qualified', { value: stage.Closed, confidence: 1, reason: 'Signed' }],
        foreign: [undefined, { value: foreignStage, confidence: 1, reason: 'Elsewhere' }],
        by_name: [undefined, 'qualified'],
        trial: ['New', { value: stage.Trial, confidence: 0.8, reason: 'Wants a trial' }],
      };
      for (const [key, [now, answer]] of Object.entries(cases)) {
        await made(key, now);
        answers[`I am ${key}`] = answer;
      }
      llm.respond = (call) => {
        if (call.kind !== 'memorize')
          return { content: call.kind === 'evaluate' ? '{"value": true}' : 'Sure.' };
        const said = call.messages.find((m) => m.role === 'user')?.content ?? '';
        const key = Object.keys(answers).find((k) => said.split('\n').includes(`Customer: ${k}`));
        return { content: JSON.stringify(key ? { pipeline_stage: answers[key] } : {}) };
      };
      const ended = await Promise.all(
        Object.keys(cases).map((key) => endSession(contacts[key], `I am ${key}`)),
      );
      Object.keys(cases).forEach((key, i) => (sessions[key] = ended[i]));
      memorizeCalls = llm.callsOf('memorize');
    });

    it('asks in the one extraction call for the stages not on dont_update, with their goals', () => {
      const calls = memorizeCalls;
      expect(calls).toHaveLength(10);
      const prompt = calls.find((c) =>
        c.messages.some((m) => m.content.includes('Customer: I am auto_qualified')),
      )!.system;
      expect(prompt).toMatch(/^From the conversation, extract which pipeline stage/);
      expect(prompt).toContain('"pipeline_stage"');
      expect(prompt).toContain(`- ${stage.New}: New (The customer made first contact)`);
      expect(prompt).toContain(`- ${stage.Negotiation}: Negotiation\n`);
      expect(prompt).toContain('The contact is now in the stage "New".');
      expect(prompt).not.toContain(stage.Closed);
      expect(prompt).not.toContain(foreignStage);
      const none = calls.find((c) =>
        c.messages.some((m) => m.content.includes('Customer: I am empty_new')),
      )!.system;
      expect(none).toContain('The contact is in no stage yet.');
    });

    it('moves, keeps or proposes as the stage analyzer says', async () => {
      const stageOf = async (key: string) => (await contactOf(contacts[key])).pipeline_stage_uuid;
      // update_if_empty: into a contact without a stage only.
      const moved = await contactOf(contacts.empty_new);
      expect(moved.pipeline_stage_uuid).toBe(stage.New);
      expect(moved.pipeline_stage_changed_at).toEqual(expect.any(String));
      expect(await stageOf('kept_qualified')).toBe(stage.Qualified);
      // automatic_update: moved from another stage; a stage named by its name works too.
      expect(await stageOf('auto_qualified')).toBe(stage.Qualified);
      expect(await stageOf('by_name')).toBe(stage.Qualified);
      // manual_approval: proposed, not moved.
      expect(await stageOf('proposed_demo')).toBe(stage.Qualified);
      // ask_approval_if_existing: moved when no stage, proposed over another.
      expect(await stageOf('empty_negotiation')).toBe(stage.Negotiation);
      expect(await stageOf('asked_negotiation')).toBe(stage.New);
      // dont_update: never moved into; another workspace's stage: ignored.
      expect(await stageOf('never_closed')).toBe(stage.Qualified);
      expect(await stageOf('foreign')).toBeNull();

      for (const key of [
        'empty_new',
        'kept_qualified',
        'auto_qualified',
        'empty_negotiation',
        'never_closed',
      ])
        expect(await approvalsOf(contacts[key])).toEqual([]);
      expect(await approvalsOf(contacts.foreign)).toEqual([]);
      const [demo] = await approvalsOf(contacts.proposed_demo);
      expect(demo).toMatchObject({
        field_name: 'pipeline_stage',
        session_uuid: sessions.proposed_demo,
        current_value: stage.Qualified,
        proposed_value: stage.Demo,
        confidence: 0.9,
        reason: 'Booked a demo',
        status: 'Pending',
      });
      const [negotiation] = await approvalsOf(contacts.asked_negotiation);
      expect(negotiation).toMatchObject({
        field_name: 'pipeline_stage',
        current_value: stage.New,
        proposed_value: stage.Negotiation,
        confidence: 0.55,
      });
      const filtered = (
        await tenant.http.get('/api/v1/contacts/approvals?field_name=pipeline_stage&per_page=100').expect(200)
      ).body.data;
      expect(filtered.pagination.total).toBe(3);
    });

    it('a second run for the session proposes nothing again', async () => {
      const memorize = app.get<MemorizeService>(MemorizeService);
      expect(await memorize.afterSession(tenant.workspaceId, sessions.proposed_demo)).toBeNull();
      const db = app.get<DataSource>(DataSource);
      await db.query(`UPDATE sessions SET memorized_at = NULL WHERE id = $1`, [sessions.proposed_demo]);
      llm.respond = extraction({ pipeline_stage: { value: stage.Demo, confidence: 0.2, reason: 'again' } });
      await memorize.afterSession(tenant.workspaceId, sessions.proposed_demo);
      expect(llm.callsOf('memorize')).toHaveLength(1);
      const again = await approvalsOf(contacts.proposed_demo);
      expect(again).toHaveLength(1);
      expect(again[0].reason).toBe('Booked a demo');
      expect((await contactOf(contacts.proposed_demo)).pipeline_stage_uuid).toBe(stage.Qualified);
    });

    it('approve moves the stage through the contact checks; a deleted or foreign stage is 422 on value', async () => {
      const [demo] = await approvalsOf(contacts.proposed_demo);
      // Another workspace can neither see nor approve it.
      const theirs = (
        await other.http.get('/api/v1/contacts/approvals?field_name=pipeline_stage').expect(200)
      ).body.data;
      expect(theirs.pagination.total).toBe(0);
      expect((await other.http.get(`/api/v1/contacts/approvals/${demo.uuid}`)).status).toBe(404);
      expect((await other.http.post(`/api/v1/contacts/approvals/${demo.uuid}/approve`).send({})).status).toBe(
        404,
      );
      const foreign = await tenant.http
        .post(`/api/v1/contacts/approvals/${demo.uuid}/approve`)
        .send({ value: foreignStage });
      expect(foreign.status).toBe(422);
      expect(foreign.body.error.field).toBe('value');
      const approved = await tenant.http
        .post(`/api/v1/contacts/approvals/${demo.uuid}/approve`)
        .send({})
        .expect(200);
      expect(approved.body.data).toMatchObject({ status: 'Approved', applied_value: stage.Demo });
      expect((await contactOf(contacts.proposed_demo)).pipeline_stage_uuid).toBe(stage.Demo);

      // An edited value: another stage of the workspace.
      const [negotiation] = await approvalsOf(contacts.asked_negotiation);
      await tenant.http
        .post(`/api/v1/contacts/approvals/${negotiation.uuid}/approve`)
        .send({ value: stage.Closed })
        .expect(200);
      expect((await contactOf(contacts.asked_negotiation)).pipeline_stage_uuid).toBe(stage.Closed);

      // The proposed stage deleted meanwhile: 422 on value, nothing changes, the approval can still be rejected.
      const [trial] = await approvalsOf(contacts.trial);
      expect(trial.proposed_value).toBe(stage.Trial);
      await tenant.http.delete(`/api/v1/contacts/pipeline/stages/${stage.Trial}`).expect(200);
      const gone = await tenant.http.post(`/api/v1/contacts/approvals/${trial.uuid}/approve`).send({});
      expect(gone.status).toBe(422);
      expect(gone.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'value' });
      expect((await tenant.http.get(`/api/v1/contacts/approvals/${trial.uuid}`)).body.data.status).toBe(
        'Pending',
      );
      expect((await contactOf(contacts.trial)).pipeline_stage_uuid).toBe(stage.New);
      await tenant.http.post(`/api/v1/contacts/approvals/${trial.uuid}/reject`).send({}).expect(200);
    });

    it('without pipeline_stage read_write the model is not asked about stages', async () => {
      await tenant.http
        .put(`/api/v1/agents/${agentId}/memorize`)
        .send({ contact_field_settings: { pipeline_stage: 'read', email: 'read_write' } })
        .expect(200);
      llm.reset();
      llm.respond = (call) =>
        call.kind === 'memorize'
          ? { content: JSON.stringify({ pipeline_stage: stage.Qualified }) }
          : { content: call.kind === 'evaluate' ? '{"value": true}' : 'Sure.' };
      await endSession(contacts.foreign, 'Hello again');
      const [call] = llm.callsOf('memorize');
      expect(call.system).not.toContain('pipeline_stage');
      expect((await contactOf(contacts.foreign)).pipeline_stage_uuid).toBeNull();
    });
  });

  describe('/analyzers', () => {
    it('lists built-in fields, custom fields and stages with their defaults', async () => {
      const tenant = await createTenant(app);
      await createField(tenant, { key: 'zone', label: 'Zone', type: 'text' });
      const stage = await createStage(tenant, { name: 'Qualified' });
      const page = (await tenant.http.get('/api/v1/analyzers?per_page=100').expect(200)).body.data;
      const ids = page.items.map((a: any) => a.id);
      expect(ids.slice(0, 3)).toEqual(['b_name', 'b_surname', 'b_email']);
      expect(ids.slice(-2)).toEqual(['f_zone', `p_${stage.uuid}`]);
      expect(page.pagination.total).toBe(ids.length);
      expect(page.items.find((a: any) => a.id === 'f_zone')).toEqual({
        id: 'f_zone',
        type: 'custom_field',
        label: 'Zone',
        field_name: 'custom_fields.zone',
        stage_uuid: null,
        update_behavior: 'update_if_empty',
        analysis_goals: null,
        example_values: null,
        editable: ['update_behavior', 'analysis_goals', 'example_values'],
        updated_at: null,
      });
      expect(page.items.at(-1)).toMatchObject({
        type: 'pipeline_stage',
        label: 'Qualified',
        stage_uuid: stage.uuid,
      });
      const second = (await tenant.http.get('/api/v1/analyzers?per_page=2&page=2').expect(200)).body.data;
      expect(second.items.map((a: any) => a.id)).toEqual(['b_email', 'b_phone_number']);
    });

    it('b_ analyzers change only update_behavior (422 otherwise); p_ takes no example_values; lengths are checked', async () => {
      const tenant = await createTenant(app);
      const stage = await createStage(tenant, { name: 'Won' });
      await createField(tenant, { key: 'size', label: 'Size', type: 'text' });
      const goals = await tenant.http
        .put('/api/v1/analyzers/b_email')
        .send({ analysis_goals: 'Something else' });
      expect(goals.status).toBe(422);
      expect(goals.body.error.field).toBe('analysis_goals');
      const examples = await tenant.http
        .put('/api/v1/analyzers/b_email')
        .send({ update_behavior: 'manual_approval', example_values: 'x@y.z' });
      expect(examples.status).toBe(422);
      expect(examples.body.error.field).toBe('example_values');
      expect((await tenant.http.get('/api/v1/analyzers/b_email')).body.data.update_behavior).toBe(
        'update_if_empty',
      );
      const current = (await tenant.http.get('/api/v1/analyzers/b_email')).body.data;
      // Sending back what GET showed is fine: only update_behavior changes.
      const ok = await tenant.http
        .put('/api/v1/analyzers/b_email')
        .send({ ...current, update_behavior: 'manual_approval' })
        .expect(200);
      expect(ok.body.data).toMatchObject({
        update_behavior: 'manual_approval',
        analysis_goals: current.analysis_goals,
      });
      expect(ok.body.data.updated_at).toEqual(expect.any(String));

      const bad = await tenant.http.put('/api/v1/analyzers/f_size').send({ update_behavior: 'sometimes' });
      expect(bad.status).toBe(422);
      expect(bad.body.error.field).toBe('update_behavior');
      expect((await tenant.http.put('/api/v1/analyzers/f_size').send({ update_behavior: null })).status).toBe(
        422,
      );
      const long = await tenant.http
        .put('/api/v1/analyzers/f_size')
        .send({ analysis_goals: 'g'.repeat(1001) });
      expect(long.status).toBe(422);
      expect(long.body.error.field).toBe('analysis_goals');
      expect(
        (await tenant.http.put('/api/v1/analyzers/f_size').send({ example_values: 'e'.repeat(1001) })).status,
      ).toBe(422);
      const field = await tenant.http
        .put('/api/v1/analyzers/f_size')
        .send({ analysis_goals: 'g'.repeat(1000), example_values: 'S, M, L' })
        .expect(200);
      expect(field.body.data).toMatchObject({
        update_behavior: 'update_if_empty',
        example_values: 'S, M, L',
      });
      const kept = await tenant.http
        .put('/api/v1/analyzers/f_size')
        .send({ update_behavior: 'dont_update' })
        .expect(200);
      expect(kept.body.data).toMatchObject({ update_behavior: 'dont_update', example_values: 'S, M, L' });

      const stageExamples = await tenant.http
        .put(`/api/v1/analyzers/p_${stage.uuid}`)
        .send({ example_values: 'x' });
      expect(stageExamples.status).toBe(422);
      expect(stageExamples.body.error.field).toBe('example_values');
      const stageGoals = await tenant.http
        .put(`/api/v1/analyzers/p_${stage.uuid}`)
        .send({ analysis_goals: 'The customer signed', update_behavior: 'manual_approval' })
        .expect(200);
      expect(stageGoals.body.data).toMatchObject({
        analysis_goals: 'The customer signed',
        example_values: null,
      });
    });

    it('an unknown id is 404, and another workspace finds none of these analyzers', async () => {
      const tenant = await createTenant(app);
      const stage = await createStage(tenant, { name: 'Lost' });
      await createField(tenant, { key: 'secret', label: 'Secret', type: 'text' });
      await tenant.http.put('/api/v1/analyzers/f_secret').send({ analysis_goals: 'mine' }).expect(200);
      for (const id of [
        'b_unknown',
        'f_missing',
        'p_not-a-uuid',
        `p_${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)}`,
        'x_name',
        'name',
      ]) {
        const res = await tenant.http.put(`/api/v1/analyzers/${id}`).send({ update_behavior: 'dont_update' });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
      }
      for (const id of ['f_secret', `p_${stage.uuid}`]) {
        expect((await other.http.get(`/api/v1/analyzers/${id}`)).status).toBe(404);
        expect(
          (await other.http.put(`/api/v1/analyzers/${id}`).send({ update_behavior: 'dont_update' })).status,
        ).toBe(404);
      }
      const theirs = (await other.http.get('/api/v1/analyzers?per_page=100').expect(200)).body.data.items;
      expect(theirs.map((a: any) => a.id)).not.toContain('f_secret');
      expect((await tenant.http.get('/api/v1/analyzers/f_secret')).body.data.update_behavior).toBe(
        'update_if_empty',
      );
      expect((await other.http.get('/api/v1/analyzers/b_email')).body.data.updated_at).toBeNull();
    });
  });

  describe('/contacts/settings', () => {
    it('answers the defaults, changes only the keys sent and validates them', async () => {
      const tenant = await createTenant(app);
      const defaults = (await tenant.http.get('/api/v1/contacts/settings').expect(200)).body.data;
      expect(defaults).toEqual({
        match_inbound_by: ['phone_number', 'email'],
        auto_create_contacts: true,
        default_country_code: null,
        default_timezone: null,
        updated_at: null,
      });
      for (const [body, field] of [
        [{ default_country_code: 'XX' }, 'default_country_code'],
        [{ default_timezone: 'Mars/Olympus' }, 'default_timezone'],
        [{ match_inbound_by: ['fax'] }, 'match_inbound_by'],
        [{ match_inbound_by: ['email', 'email'] }, 'match_inbound_by'],
        [{ match_inbound_by: 'email' }, 'match_inbound_by'],
        [{ auto_create_contacts: 'yes' }, 'auto_create_contacts'],
        [{ auto_create_contacts: null }, 'auto_create_contacts'],
      ] as const) {
        const res = await tenant.http.put('/api/v1/contacts/settings').send(body);
        expect(res.status).toBe(422);
        expect(res.body.error.field).toBe(field);
      }
      const changed = await tenant.http
        .put('/api/v1/contacts/settings')
        .send({
          default_country_code: 'gb',
          default_timezone: 'Europe/London',
          match_inbound_by: ['email', 'phone_number'],
        })
        .expect(200);
      expect(changed.body.data).toMatchObject({
        match_inbound_by: ['phone_number', 'email'],
        auto_create_contacts: true,
        default_country_code: 'GB',
        default_timezone: 'Europe/London',
        updated_at: expect.any(String),
      });
      const partial = await tenant.http
        .put('/api/v1/contacts/settings')
        .send({ auto_create_contacts: false })
        .expect(200);
      expect(partial.body.data).toMatchObject({ auto_create_contacts: false, default_country_code: 'GB' });
      const cleared = await tenant.http
        .put('/api/v1/contacts/settings')
        .send({ default_timezone: null })
        .expect(200);
      expect(cleared.body.data).toMatchObject({ default_timezone: null, default_country_code: 'GB' });
      expect((await tenant.http.get('/api/v1/contacts/settings')).body.data).toEqual(cleared.body.data);
      // Another workspace keeps its own (default) settings.
      expect(
        (await other.http.get('/api/v1/contacts/settings').expect(200)).body.data.auto_create_contacts,
      ).toBe(true);
    });

    /** A sandbox number bound to a new agent for SMS and calls, and an inbound SMS to it answering its contact. */
    const inboundLine = async (tenant: TestTenant) => {
      const agentId = await createAgentId(tenant, { name: 'Inbound' });
      const number = newNumber();
      const line = (
        await tenant.http.post('/api/v1/phone-numbers').send({ number, provider: 'sandbox' }).expect(201)
      ).body.data.uuid;
      await tenant.http
        .post(`/api/v1/agents/${agentId}/phone-numbers`)
        .send({ phone_number_uuid: line, channels: ['sms', 'call'] })
        .expect(201);
      const sms = async (from: string) =>
        (
          await tenant.http
            .post('/api/v1/sms/simulate-inbound')
            .send({ to: number, from, body: 'Hello' })
            .expect(201)
        ).body.data.conversation.contact_uuid as string | null;
      return { agentId, number, sms };
    };
    /** The workspace's contacts with this number and the contact_created events that carry it, from the database. */
    const storedFor = async (tenant: TestTenant, phone: string) => {
      const db = app.get<DataSource>(DataSource);
      return {
        contacts: (
          await db.query(`SELECT id FROM contacts WHERE workspace_id = $1 AND phone_number = $2`, [
            tenant.workspaceId,
            phone,
          ])
        ).map((r: { id: string }) => r.id),
        events: (
          await db.query(
            `SELECT data FROM outbox_events
              WHERE workspace_id = $1 AND type = 'contact_created' AND data->'contact'->>'phone_number' = $2`,
            [tenant.workspaceId, phone],
          )
        ).map((r: { data: unknown }) => r.data),
      };
    };

    it('inbound SMS and calls find or create their contact as the settings say', async () => {
      const tenant = await createTenant(app);
      const { number, sms } = await inboundLine(tenant);
      const contactsWith = async (phone: string) =>
        (await tenant.http.get(`/api/v1/contacts?search=${encodeURIComponent(phone)}`).expect(200)).body.data
          .items;

      // Defaults: an unknown number gets a contact named after it.
      const first = sandboxDestination('2001');
      const created = await sms(first);
      expect(created).toEqual(expect.any(String));
      expect((await tenant.http.get(`/api/v1/contacts/${created}`)).body.data).toMatchObject({
        name: first,
        phone_number: first,
        country_code: null,
        timezone: null,
      });
      expect(await sms(first)).toBe(created);

      // Defaults for the contacts made that way.
      await tenant.http
        .put('/api/v1/contacts/settings')
        .send({ default_country_code: 'US', default_timezone: 'America/Los_Angeles' })
        .expect(200);
      const second = sandboxDestination('2002');
      const withDefaults = await sms(second);
      expect((await tenant.http.get(`/api/v1/contacts/${withDefaults}`)).body.data).toMatchObject({
        phone_number: second,
        country_code: 'US',
        timezone: 'America/Los_Angeles',
      });
      const caller = sandboxDestination('2003');
      const call = await tenant.http
        .post('/api/v1/calls/simulate-inbound')
        .send({ to: number, from: caller })
        .expect(201);
      expect(call.body.data.contact).toMatchObject({ uuid: expect.any(String) });
      expect((await contactsWith(caller))[0]).toMatchObject({
        timezone: 'America/Los_Angeles',
        country_code: 'US',
      });

      // auto_create_contacts false: unknown numbers get none, known ones are still found.
      await tenant.http.put('/api/v1/contacts/settings').send({ auto_create_contacts: false }).expect(200);
      const stranger = sandboxDestination('2004');
      expect(await sms(stranger)).toBeNull();
      expect(await contactsWith(stranger)).toEqual([]);
      expect(await storedFor(tenant, stranger)).toEqual({ contacts: [], events: [] });
      const strangerCall = sandboxDestination('2005');
      const noContact = await tenant.http
        .post('/api/v1/calls/simulate-inbound')
        .send({ to: number, from: strangerCall })
        .expect(201);
      expect(noContact.body.data.contact).toBeNull();
      expect(await contactsWith(strangerCall)).toEqual([]);
      const known = sandboxDestination('2006');
      const knownContact = (
        await tenant.http.post('/api/v1/contacts').send({ name: 'Known', phone_number: known }).expect(201)
      ).body.data.uuid;
      expect(await sms(known)).toBe(knownContact);

      // Without phone_number in match_inbound_by, phone channels carry no contact.
      await tenant.http
        .put('/api/v1/contacts/settings')
        .send({ match_inbound_by: ['email'], auto_create_contacts: true })
        .expect(200);
      const unmatched = sandboxDestination('2007');
      await tenant.http
        .post('/api/v1/contacts')
        .send({ name: 'Unmatched', phone_number: unmatched })
        .expect(201);
      expect(await sms(unmatched)).toBeNull();
      expect(await contactsWith(unmatched)).toHaveLength(1);
      const contacts = app.get<ContactsService>(ContactsService);
      expect(await contacts.inboundContactFor(tenant.workspaceId, unmatched)).toBeNull();
      const unmatchedNew = sandboxDestination('2008');
      expect(await sms(unmatchedNew)).toBeNull();
      expect(await storedFor(tenant, unmatchedNew)).toEqual({ contacts: [], events: [] });
    });

    it('an inbound number becomes one contact with one contact_created event carrying its API view, even in a race', async () => {
      const tenant = await createTenant(app);
      const contacts = app.get<ContactsService>(ContactsService);
      const { number, sms } = await inboundLine(tenant);
      const call = async (from: string) =>
        (await tenant.http.post('/api/v1/calls/simulate-inbound').send({ to: number, from }).expect(201)).body
          .data.contact?.uuid as string | undefined;
      const stored = (phone: string) => storedFor(tenant, phone);
      await tenant.http
        .put('/api/v1/contacts/settings')
        .send({ default_country_code: 'FR', default_timezone: 'Europe/Paris' })
        .expect(200);

      const first = sandboxDestination('3001');
      const id = await sms(first);
      const view = (await tenant.http.get(`/api/v1/contacts/${id}`).expect(200)).body.data;
      expect(view).toMatchObject({
        name: first,
        phone_number: first,
        country_code: 'FR',
        timezone: 'Europe/Paris',
        status: 'Active',
        tags: [],
        custom_fields: {},
      });
      expect(await stored(first)).toEqual({ contacts: [id], events: [{ contact: view }] });
      expect(await sms(first)).toBe(id);
      expect((await stored(first)).events).toHaveLength(1);

      // Messages, a call and direct lookups from one new number at once: one contact, one event.
      const racing = sandboxDestination('3002');
      const ids = await Promise.all([
        sms(racing),
        call(racing),
        ...Array.from({ length: 4 }, () => contacts.inboundContactFor(tenant.workspaceId, racing)),
      ]);
      const raced = await stored(racing);
      expect(raced.contacts).toHaveLength(1);
      expect(new Set(ids)).toEqual(new Set(raced.contacts));
      const racedView = (await tenant.http.get(`/api/v1/contacts/${raced.contacts[0]}`).expect(200)).body
        .data;
      expect(raced.events).toEqual([{ contact: racedView }]);

      // A sender that is not a phone number (an alphanumeric sender ID, a short code) gets no contact, no event.
      for (const sender of ['ACME', '72975'])
        expect(await contacts.inboundContactFor(tenant.workspaceId, sender)).toBeNull();
      expect(await stored('ACME')).toEqual({ contacts: [], events: [] });
      expect(await stored('72975')).toEqual({ contacts: [], events: [] });
    });
  });
});
