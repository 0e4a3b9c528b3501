import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTenant } from '../factories/workspace.factory';
import { createAgent } from '../factories/agent.factory';
import { MISSING } from '../support/ids';
import { useTestApp } from '../setup/suite';

describe('Agents: routing and guard rules, rule check', () => {
  const suite = useTestApp({ tenants: ['tenant'] });

  const base = (a: any) => `/api/v1/agents/${a.agent_uuid}`;

  describe('routing rules', () => {
    it('POST defaults priority to max + 1 and answers 201 with the full list by priority then insertion', async () => {
      const a = await createAgent(suite.tenant);
      const r1 = await suite.tenant.http
        .post(`${base(a)}/routing-rules`)
        .send({ trigger_keyword: 'sales', detection_mode: 'exact' });
      expect(r1.status).toBe(201);
      expect(r1.body.data.routing_rules).toEqual([
        {
          uuid: expect.any(String),
          detection_mode: 'exact',
          trigger_keyword: 'sales',
          department_name: null,
          phrases: [],
          ai_prompt: null,
          voice_response: null,
          voice_on_error: null,
          voice_on_success: null,
          destination_type: null,
          destination: null,
          destination_agent_uuid: null,
          transfer_type: null,
          transfer_config: {},
          priority: 1,
          is_active: true,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ]);
      await suite.tenant.http.post(`${base(a)}/routing-rules`).send({ trigger_keyword: 'ten', priority: 10 });
      await suite.tenant.http.post(`${base(a)}/routing-rules`).send({ trigger_keyword: 'tie', priority: 1 });
      const last = await suite.tenant.http.post(`${base(a)}/routing-rules`).send({ trigger_keyword: 'last' });
      expect(last.body.data.routing_rules.map((r: any) => [r.trigger_keyword, r.priority])).toEqual([
        ['sales', 1],
        ['tie', 1],
        ['ten', 10],
        ['last', 11],
      ]);
      expect(last.body.data.routing_rules[3].detection_mode).toBe('intent');
    });

    it('PUT replaces the whole set (old rules deleted), PATCH touches only the keys sent, DELETE keeps the others', async () => {
      const a = await createAgent(suite.tenant);
      const dest = await createAgent(suite.tenant, { name: 'Billing agent' });
      const old = await suite.tenant.http.post(`${base(a)}/routing-rules`).send({ trigger_keyword: 'old' });
      const oldId = old.body.data.routing_rules[0].uuid;
      const put = await suite.tenant.http.put(`${base(a)}/routing-rules`).send({
        routing_rules: [
          {
            department_name: 'Billing',
            detection_mode: 'both',
            trigger_keyword: 'billing',
            phrases: ['question about my invoice'],
            ai_prompt: 'Invoices and payments',
            voice_response: 'Transferring to billing',
            voice_on_error: 'Billing is closed',
            voice_on_success: 'Connected',
            destination_type: 'agent',
            destination_agent_uuid: dest.agent_uuid,
            transfer_type: 'transfer_call',
            transfer_config: { timeout_seconds: 20 },
            priority: 5,
            is_active: true,
          },
          {
            trigger_keyword: 'support',
            detection_mode: 'exact',
            destination_type: 'extension',
            destination: '300',
          },
          { trigger_keyword: 'first', detection_mode: 'exact', priority: 0 },
        ],
      });
      expect(put.status).toBe(200);
      const rules = put.body.data.routing_rules;
      expect(rules.map((r: any) => [r.trigger_keyword, r.priority])).toEqual([
        ['first', 0],
        ['billing', 5],
        ['support', 6],
      ]);
      expect(rules.some((r: any) => r.uuid === oldId)).toBe(false);
      expect(rules[1]).toMatchObject({
        department_name: 'Billing',
        destination_agent_uuid: dest.agent_uuid,
        transfer_config: { timeout_seconds: 20 },
        voice_on_error: 'Billing is closed',
      });
      expect(
        (await suite.tenant.http.patch(`${base(a)}/routing-rules/${oldId}`).send({ priority: 1 })).status,
      ).toBe(404);

      const billing = rules[1];
      const patched = await suite.tenant.http
        .patch(`${base(a)}/routing-rules/${billing.uuid}`)
        .send({ priority: 50, is_active: false });
      expect(patched.status).toBe(200);
      const after = patched.body.data.routing_rules.find((r: any) => r.uuid === billing.uuid);
      expect(after).toEqual({ ...billing, priority: 50, is_active: false, updated_at: expect.any(String) });
      expect(patched.body.data.routing_rules.map((r: any) => r.trigger_keyword)).toEqual([
        'first',
        'support',
        'billing',
      ]);

      const del = await suite.tenant.http.delete(`${base(a)}/routing-rules/${rules[0].uuid}`);
      expect(del.body.data.routing_rules.map((r: any) => r.trigger_keyword)).toEqual(['support', 'billing']);
    });

    it.each([
      [{ priority: 1.5 }, 'INVALID_FORMAT', 'priority'],
      [{ priority: '1' }, 'INVALID_FORMAT', 'priority'],
      [{ detection_mode: 'fuzzy' }, 'INVALID_FORMAT', 'detection_mode'],
      [{ phrases: 'hello' }, 'INVALID_FORMAT', 'phrases'],
      [{ phrases: ['ok', 3] }, 'INVALID_FORMAT', 'phrases'],
      [{ destination_agent_uuid: 'abc' }, 'INVALID_UUID', 'destination_agent_uuid'],
      [{ destination_agent_uuid: MISSING }, 'INVALID_FORMAT', 'destination_agent_uuid'],
      [{ destination_type: 'pigeon' }, 'INVALID_FORMAT', 'destination_type'],
      [{ transfer_type: 'teleport' }, 'INVALID_FORMAT', 'transfer_type'],
      [{ transfer_config: 'x' }, 'INVALID_FORMAT', 'transfer_config'],
      [{ is_active: 'true' }, 'INVALID_FORMAT', 'is_active'],
    ])('POST rejects %j with %s on %s', async (body, code, field) => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http.post(`${base(a)}/routing-rules`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('rejects a destination agent of another workspace like an unknown one, and a bad item in PUT by index', async () => {
      const other = await createTenant(suite.app);
      const foreign = await createAgent(other);
      const a = await createAgent(suite.tenant);
      await suite.tenant.http.post(`${base(a)}/routing-rules`).send({ trigger_keyword: 'kept' });
      const res = await suite.tenant.http
        .post(`${base(a)}/routing-rules`)
        .send({ destination_agent_uuid: foreign.agent_uuid });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'destination_agent_uuid' });
      const put = await suite.tenant.http
        .put(`${base(a)}/routing-rules`)
        .send({ routing_rules: [{ trigger_keyword: 'a' }, { destination_agent_uuid: foreign.agent_uuid }] });
      expect(put.status).toBe(422);
      expect(put.body.error.field).toBe('routing_rules.1.destination_agent_uuid');
      const put2 = await suite.tenant.http
        .put(`${base(a)}/routing-rules`)
        .send({ routing_rules: [{ priority: 'x' }] });
      expect(put2.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'routing_rules.0.priority' });
      // Nothing half-written: the old rule is still there.
      const after = await suite.tenant.http.get(base(a));
      expect(after.body.data.routing_rules.map((r: any) => r.trigger_keyword)).toEqual(['kept']);
    });

    it('PATCH cannot null a required key; malformed ruleUuid is 422 naming ruleUuid', async () => {
      const a = await createAgent(suite.tenant);
      const made = await suite.tenant.http.post(`${base(a)}/routing-rules`).send({ trigger_keyword: 'x' });
      const id = made.body.data.routing_rules[0].uuid;
      const res = await suite.tenant.http.patch(`${base(a)}/routing-rules/${id}`).send({ priority: null });
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'priority' });
      const bad = await suite.tenant.http.patch(`${base(a)}/routing-rules/xyz`).send({});
      expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'ruleUuid' });
    });
  });

  describe('guard rules', () => {
    it('POST 201, PUT replaces, PATCH keys sent, DELETE keeps the others; insertion order', async () => {
      const a = await createAgent(suite.tenant);
      const post = await suite.tenant.http.post(`${base(a)}/guard-rules`).send({
        name: 'Human',
        when_condition: 'The customer asks for a human',
        example_phrases: ['I want to speak to a human'],
        then_action: 'forward',
        selected_channels: ['phone'],
        say_before_forwarding: 'Connecting you',
        destination_type: 'extension',
        destination: '100',
      });
      expect(post.status).toBe(201);
      expect(post.body.data.guard_rules).toEqual([
        {
          uuid: expect.any(String),
          name: 'Human',
          when_condition: 'The customer asks for a human',
          example_phrases: ['I want to speak to a human'],
          then_action: 'forward',
          selected_channels: ['phone'],
          say_before_forwarding: 'Connecting you',
          say_before_end: null,
          destination_type: 'extension',
          destination: '100',
          destination_agent_uuid: null,
          is_active: true,
          is_default: false,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ]);
      const put = await suite.tenant.http.put(`${base(a)}/guard-rules`).send({
        guard_rules: [
          { name: 'one', then_action: 'end_conversation' },
          { name: 'two' },
          { name: 'three', is_default: true },
        ],
      });
      expect(put.body.data.guard_rules.map((g: any) => [g.name, g.then_action, g.is_default])).toEqual([
        ['one', 'end_conversation', false],
        ['two', 'forward', false],
        ['three', 'forward', true],
      ]);
      const two = put.body.data.guard_rules[1];
      const patched = await suite.tenant.http
        .patch(`${base(a)}/guard-rules/${two.uuid}`)
        .send({ say_before_end: 'Bye' });
      expect(patched.body.data.guard_rules[1]).toEqual({
        ...two,
        say_before_end: 'Bye',
        updated_at: expect.any(String),
      });
      const del = await suite.tenant.http.delete(
        `${base(a)}/guard-rules/${put.body.data.guard_rules[0].uuid}`,
      );
      expect(del.body.data.guard_rules.map((g: any) => g.name)).toEqual(['two', 'three']);
    });

    it.each([
      [{ then_action: 'explode' }, 'INVALID_FORMAT', 'then_action'],
      [{ selected_channels: ['fax'] }, 'INVALID_FORMAT', 'selected_channels'],
      [{ selected_channels: 'phone' }, 'INVALID_FORMAT', 'selected_channels'],
      [{ example_phrases: [1] }, 'INVALID_FORMAT', 'example_phrases'],
      [{ destination_agent_uuid: 'x' }, 'INVALID_UUID', 'destination_agent_uuid'],
      [{ destination_agent_uuid: MISSING }, 'INVALID_FORMAT', 'destination_agent_uuid'],
      [{ is_default: 'no' }, 'INVALID_FORMAT', 'is_default'],
      [{ when_condition: 7 }, 'INVALID_FORMAT', 'when_condition'],
    ])('POST rejects %j with %s on %s', async (body, code, field) => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http.post(`${base(a)}/guard-rules`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });
  });

  describe('POST /agents/{uuid}/rules/test', () => {
    it('runs guards first, then routing by priority, with the trace, and changes nothing', async () => {
      const a = await createAgent(suite.tenant);
      await suite.tenant.http.put(`${base(a)}/guard-rules`).send({
        guard_rules: [
          {
            name: 'Human',
            when_condition: 'The customer asks for a human',
            example_phrases: ['I want to speak to a human', 'get me a real person'],
            then_action: 'forward',
            selected_channels: ['phone'],
            say_before_forwarding: 'Connecting you',
            destination_type: 'extension',
            destination: '100',
          },
        ],
      });
      const put = await suite.tenant.http.put(`${base(a)}/routing-rules`).send({
        routing_rules: [
          {
            detection_mode: 'exact',
            trigger_keyword: 'billing',
            priority: 2,
            voice_response: 'To billing',
            destination: '200',
            destination_type: 'extension',
          },
          {
            detection_mode: 'exact',
            trigger_keyword: 'billing',
            priority: 1,
            voice_response: 'First billing',
            is_active: false,
          },
          {
            detection_mode: 'intent',
            ai_prompt: 'Technical support',
            phrases: ['my internet is not working', 'the router keeps disconnecting'],
            priority: 3,
            transfer_type: 'warm_transfer',
            voice_response: 'To support',
          },
        ],
      });
      const [inactive, billing, support] = put.body.data.routing_rules;
      const before = (await suite.tenant.http.get(base(a))).body.data;

      const guard = await suite.tenant.http
        .post(`${base(a)}/rules/test`)
        .send({ utterance: 'I want to speak to a human about billing', channel: 'phone' });
      expect(guard.status).toBe(200);
      expect(guard.body.data).toMatchObject({
        decision: 'guard',
        action: 'forward',
        say: 'Connecting you',
        destination: { type: 'extension', value: '100', agent_uuid: null },
        classifier: 'local',
      });
      expect(guard.body.data.rule.uuid).toBe(before.guard_rules[0].uuid);
      expect(guard.body.data.trace[0]).toMatchObject({ kind: 'guard', eligible: true, matched: true });
      expect(guard.body.data.trace.slice(1).every((t: any) => t.kind === 'routing' && !t.matched)).toBe(true);

      // The guard is for phone only: on SMS routing decides, skipping the inactive rule.
      const sms = await suite.tenant.http
        .post(`${base(a)}/rules/test`)
        .send({ utterance: 'I want to speak to a human about billing', channel: 'sms' });
      expect(sms.body.data).toMatchObject({
        decision: 'routing',
        action: 'transfer_call',
        say: 'To billing',
      });
      expect(sms.body.data.rule.uuid).toBe(billing.uuid);
      expect(sms.body.data.trace).toEqual([
        {
          rule_uuid: before.guard_rules[0].uuid,
          kind: 'guard',
          eligible: false,
          reason: 'channel sms not selected',
          matched: false,
          score: null,
        },
        {
          rule_uuid: inactive.uuid,
          kind: 'routing',
          eligible: false,
          reason: 'inactive',
          matched: false,
          score: null,
        },
        {
          rule_uuid: billing.uuid,
          kind: 'routing',
          eligible: true,
          reason: 'keyword matched',
          matched: true,
          score: 1,
        },
        {
          rule_uuid: support.uuid,
          kind: 'routing',
          eligible: true,
          reason: 'not evaluated: an earlier rule matched',
          matched: false,
          score: null,
        },
      ]);

      const intent = await suite.tenant.http
        .post(`${base(a)}/rules/test`)
        .send({ utterance: 'My internet connection is not working', channel: 'chat' });
      expect(intent.body.data).toMatchObject({
        decision: 'routing',
        action: 'warm_transfer',
        say: 'To support',
      });

      const none = await suite.tenant.http
        .post(`${base(a)}/rules/test`)
        .send({ utterance: 'What are your opening hours?', channel: 'chat' });
      expect(none.body.data).toMatchObject({
        decision: 'none',
        rule: null,
        action: null,
        say: null,
        destination: null,
      });

      expect((await suite.tenant.http.get(base(a))).body.data).toEqual(before);
    });

    it.each([
      [{ channel: 'phone' }, 'VALIDATION_ERROR', 'utterance'],
      [{ utterance: '', channel: 'phone' }, 'VALIDATION_ERROR', 'utterance'],
      [{ utterance: 'hi' }, 'VALIDATION_ERROR', 'channel'],
      [{ utterance: 'hi', channel: 'fax' }, 'INVALID_FORMAT', 'channel'],
      [{ utterance: 5, channel: 'phone' }, 'INVALID_FORMAT', 'utterance'],
    ])('rejects %j with %s on %s', async (body, code, field) => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http.post(`${base(a)}/rules/test`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    describe('with a language model', () => {
      let server: Server;
      let llmUrl: string;
      let calls: any[];
      beforeAll(async () => {
        calls = [];
        server = createServer((req, res) => {
          let raw = '';
          req.on('data', (c: Buffer) => (raw += c.toString()));
          req.on('end', () => {
            const body = JSON.parse(raw);
            calls.push({ url: req.url, body });
            const { utterance, candidates } = JSON.parse(body.messages[1].content);
            // A model that understands refunds only.
            const scores = candidates.map((c: any) => ({
              id: c.id,
              score: /money back/.test(utterance) && /refund/i.test(c.description) ? 0.93 : 0.05,
            }));
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(
              JSON.stringify({ model: 'm', choices: [{ message: { content: JSON.stringify({ scores }) } }] }),
            );
          });
        });
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
        llmUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      });
      afterAll(() => new Promise((r) => server.close(r)));

      it("classifies intents through the agent's custom_llm_url", async () => {
        const a = await createAgent(suite.tenant, { custom_llm_url: llmUrl });
        await suite.tenant.http.post(`${base(a)}/routing-rules`).send({
          detection_mode: 'intent',
          ai_prompt: 'The customer wants a refund',
          phrases: ['refund please'],
          voice_response: 'Refunds',
        });
        const res = await suite.tenant.http
          .post(`${base(a)}/rules/test`)
          .send({ utterance: 'I want my money back', channel: 'phone' });
        expect(res.body.data).toMatchObject({
          decision: 'routing',
          say: 'Refunds',
          classifier: 'llm',
          classifier_note: null,
        });
        expect(res.body.data.trace[0]).toMatchObject({ matched: true, score: 0.93 });
        expect(calls).toHaveLength(1);
        expect(calls[0].url).toBe('/v1/chat/completions');
        expect(calls[0].body.response_format).toEqual({ type: 'json_object' });
      });

      it('falls back to the local classifier with a note when the model is unreachable', async () => {
        const a = await createAgent(suite.tenant, { custom_llm_url: 'http://127.0.0.1:1/v1' });
        await suite.tenant.http.post(`${base(a)}/routing-rules`).send({
          detection_mode: 'intent',
          ai_prompt: 'Refunds',
          phrases: ['refund please'],
        });
        const res = await suite.tenant.http
          .post(`${base(a)}/rules/test`)
          .send({ utterance: 'refund please', channel: 'phone' });
        expect(res.body.data).toMatchObject({ decision: 'routing', classifier: 'local' });
        expect(res.body.data.classifier_note).toMatch(/unreachable/);
      });
    });
  });
});
