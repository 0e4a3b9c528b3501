import { DataSource } from 'typeorm';
import { createAgent } from '../factories/agent.factory';
import { sandboxLine } from '../factories/call.factory';
import { twilioLine } from '../factories/twilio.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { MISSING } from '../support/ids';
import { LlmServer } from '../support/llm-server';
import { MediaClient } from '../support/media-client';
import { SpeechServer } from '../support/speech-server';
import { postSigned, TWILIO_SID, TWILIO_TOKEN, TwilioServer } from '../support/twilio-server';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://sip.example.test';
const PBX_PASSWORD = 'pbx-Pa55word-never-shown';
const AUTH_PASSWORD = 'digest-Pa55word-never-shown';
const TRUNK_PASSWORD = 'trunk-Pa55word-never-shown';
const SECRETS = [PBX_PASSWORD, AUTH_PASSWORD, TRUNK_PASSWORD];

let seq = 0;
/** An E.164 number unique to this run. */
const uniqueNumber = (prefix = '+1332') => {
  seq += 1;
  return `${prefix}${200 + ((process.pid * 11 + seq) % 800)}${String((Date.now() + seq) % 10000).padStart(4, '0')}`;
};

describe('SIP: PBX extension connectors, SIP trunks, external numbers, extension forwards', () => {
  // Declared before the suite start so the media clients close before the app does.
  afterAll(() => {
    for (const c of clients) c.close();
  });
  const suite = useTestApp({
    servers: {
      twilio: () => TwilioServer.start(),
      llm: () => LlmServer.start(),
      speech: () => SpeechServer.start(),
    },
    env: ({ llm, speech, twilio }) => ({
      LLM_BASE_URL: llm.url,
      STT_BASE_URL: speech.url,
      TTS_BASE_URL: speech.url,
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_API_URL: twilio.url,
      PUBLIC_BASE_URL: PUBLIC,
      SANDBOX_ANSWER_DELAY_MS: '100',
      LOG_LEVEL: 'debug',
    }),
    captureLogs: true,
    tenants: ['t', 'other'],
  });
  let twilio: TwilioServer;
  let speech: SpeechServer;
  let app: TestApp;
  let db: DataSource;
  let t: TestTenant;
  let other: TestTenant;
  const clients: MediaClient[] = [];

  const connector = (agentId: string, body: Record<string, unknown> = {}) =>
    t.http.post('/api/v1/pbx_extension_connectors').send({
      agent_uuid: agentId,
      registrar_server: 'pbx.example.com',
      username_extension: '1001',
      pbx_password: PBX_PASSWORD,
      ...body,
    });
  const trunk = (body: Record<string, unknown> = {}) =>
    t.http.post('/api/v1/channels/sip-trunk/connections').send({
      name: 'Head office',
      phone_number: uniqueNumber(),
      gateway: 'sip.carrier.example',
      username: 'trunk-user',
      password: TRUNK_PASSWORD,
      ...body,
    });
  const callOf = async (id: string) => (await t.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;

  beforeAll(() => {
    ({ twilio, speech, app, t, other } = suite);
    db = app.get<DataSource>(DataSource);
  });

  describe('PBX extension connectors', () => {
    it('creates, lists, reads, changes and deletes; passwords are sealed and shown only as has_password', async () => {
      const agent = await createAgent(t);
      const created = await connector(agent.agent_uuid, {
        phone_number: '+14155550100',
        allowed_ip: '203.0.113.0/24',
        auth_username: 'agent-1001',
        auth_password: AUTH_PASSWORD,
        normalizer: 'e164',
      });
      expect(created.status).toBe(201);
      const c = created.body.data;
      expect(c).toMatchObject({
        agent_uuid: agent.agent_uuid,
        phone_number: '+14155550100',
        registrar_server: 'pbx.example.com',
        username_extension: '1001',
        has_password: true,
        has_auth_password: true,
        allowed_ip: '203.0.113.0/24',
        setup_mode: 'both',
        connection_type: 'udp',
        port: 5060,
        auth_username: 'agent-1001',
        normalizer: 'e164',
        status: 'active',
      });
      expect(c).not.toHaveProperty('pbx_password');
      expect(c).not.toHaveProperty('auth_password');
      const [row] = await db.query(
        `SELECT pbx_password_ciphertext AS p, auth_password_ciphertext AS a FROM pbx_extension_connectors WHERE id = $1`,
        [c.uuid],
      );
      expect(row.p).toMatch(/^v1:/);
      expect(row.a).toMatch(/^v1:/);
      expect(JSON.stringify(row)).not.toContain(PBX_PASSWORD);

      const list = await t.http.get('/api/v1/pbx_extension_connectors').expect(200);
      expect(list.body.data.items.map((x: { uuid: string }) => x.uuid)).toContain(c.uuid);
      expect(list.body.data.pagination).toBeDefined();
      const byAgent = await t.http.get(`/api/v1/pbx_extension_connectors?agent_uuid=${agent.agent_uuid}`);
      expect(byAgent.body.data.items).toHaveLength(1);
      await t.http.get(`/api/v1/pbx_extension_connectors/${c.uuid}`).expect(200);

      const patched = await t.http
        .patch(`/api/v1/pbx_extension_connectors/${c.uuid}`)
        .send({ port: 5061, connection_type: 'tls', auth_password: null, setup_mode: 'outbound' })
        .expect(200);
      expect(patched.body.data).toMatchObject({
        port: 5061,
        connection_type: 'tls',
        has_auth_password: false,
        has_password: true,
        setup_mode: 'outbound',
        registrar_server: 'pbx.example.com',
      });

      await t.http.delete(`/api/v1/pbx_extension_connectors/${c.uuid}`).expect(200);
      await t.http.get(`/api/v1/pbx_extension_connectors/${c.uuid}`).expect(404);
      await t.http.delete(`/api/v1/pbx_extension_connectors/${c.uuid}`).expect(404);
    });

    it('validates: host-only registrar, modes, port, agent; names the field', async () => {
      const agent = await createAgent(t);
      const cases: [Record<string, unknown>, string, string][] = [
        [{ registrar_server: 'sip://pbx.example.com:5060' }, 'registrar_server', 'INVALID_FORMAT'],
        [{ registrar_server: 'pbx.example.com/path' }, 'registrar_server', 'INVALID_FORMAT'],
        [{ setup_mode: 'sideways' }, 'setup_mode', 'INVALID_FORMAT'],
        [{ connection_type: 'sctp' }, 'connection_type', 'INVALID_FORMAT'],
        [{ port: 70000 }, 'port', 'INVALID_FORMAT'],
        [{ allowed_ip: '300.1.1.1' }, 'allowed_ip', 'INVALID_FORMAT'],
        [{ pbx_password: undefined }, 'pbx_password', 'VALIDATION_ERROR'],
        [{ agent_uuid: MISSING }, 'agent_uuid', 'VALIDATION_ERROR'],
      ];
      for (const [body, field, code] of cases) {
        const res = await connector(agent.agent_uuid, body);
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ field, code });
      }
      // An IPv6 registrar is a host too.
      await connector(agent.agent_uuid, { registrar_server: '2001:db8::10' }).expect(201);
    });

    it("takes the source product's normalizer object, names the key and type it wants, and answers it as stored", async () => {
      const agent = await createAgent(t);
      const normalizer = { default_prefix: '+1', condition_length: 10, condition_prefix: '' };
      const created = await connector(agent.agent_uuid, { normalizer }).expect(201);
      expect(created.body.data.normalizer).toEqual(normalizer);
      const id = created.body.data.uuid as string;
      const read = await t.http.get(`/api/v1/pbx_extension_connectors/${id}`).expect(200);
      expect(read.body.data).toEqual(created.body.data);
      const listed = await t.http.get(`/api/v1/pbx_extension_connectors?agent_uuid=${agent.agent_uuid}`);
      expect(listed.body.data.items).toEqual([created.body.data]);
      // Keys left out answer null; the text form stays accepted; null removes it.
      const partial = await t.http
        .patch(`/api/v1/pbx_extension_connectors/${id}`)
        .send({ normalizer: { default_prefix: '+44', ignored: true } })
        .expect(200);
      expect(partial.body.data.normalizer).toEqual({
        default_prefix: '+44',
        condition_length: null,
        condition_prefix: null,
      });
      const text = await t.http
        .patch(`/api/v1/pbx_extension_connectors/${id}`)
        .send({ normalizer: 'e164' })
        .expect(200);
      expect(text.body.data.normalizer).toBe('e164');
      const cleared = await t.http
        .patch(`/api/v1/pbx_extension_connectors/${id}`)
        .send({ normalizer: null })
        .expect(200);
      expect(cleared.body.data.normalizer).toBeNull();
      const cases: [unknown, string, string, string][] = [
        [
          { ...normalizer, condition_length: '10' },
          'normalizer.condition_length',
          'INVALID_FORMAT',
          'integer',
        ],
        [{ ...normalizer, condition_length: 0 }, 'normalizer.condition_length', 'INVALID_FORMAT', 'integer'],
        [{ ...normalizer, default_prefix: 1 }, 'normalizer.default_prefix', 'INVALID_FORMAT', 'string'],
        [{ ...normalizer, default_prefix: '1-' }, 'normalizer.default_prefix', 'INVALID_FORMAT', 'digits'],
        [{ ...normalizer, condition_prefix: 5 }, 'normalizer.condition_prefix', 'INVALID_FORMAT', 'string'],
        [{ condition_length: 10 }, 'normalizer.default_prefix', 'VALIDATION_ERROR', 'required'],
        [12, 'normalizer', 'INVALID_FORMAT', 'or an object {default_prefix'],
        [['+1'], 'normalizer', 'INVALID_FORMAT', 'or an object {default_prefix'],
        ['x'.repeat(201), 'normalizer', 'INVALID_FORMAT', '200'],
      ];
      for (const [value, field, code, says] of cases) {
        const res = await connector(agent.agent_uuid, { normalizer: value });
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ field, code });
        expect(res.body.message).toContain(says);
        const patch = await t.http
          .patch(`/api/v1/pbx_extension_connectors/${id}`)
          .send({ normalizer: value });
        expect(patch.status).toBe(422);
        expect(patch.body.error).toMatchObject({ field, code });
      }
    });

    it('test answers {reachable, provider}: sandbox always reachable; Twilio resolves the registrar', async () => {
      const sandbox = await sandboxLine(t);
      const a = (await connector(sandbox.agentId, { registrar_server: 'pbx.invalid' }).expect(201)).body.data;
      const r1 = await t.http.post(`/api/v1/pbx_extension_connectors/${a.uuid}/test`).expect(200);
      expect(r1.body.data).toEqual({ reachable: true, provider: 'sandbox', method: 'sandbox' });
      // A POST that creates nothing answers OK, not Created.
      expect(r1.body.message).toBe('OK');

      const line = await twilioLine(t);
      const ip = (await connector(line.agentId, { registrar_server: '198.51.100.7' }).expect(201)).body.data;
      const r2 = await t.http.post(`/api/v1/pbx_extension_connectors/${ip.uuid}/test`).expect(200);
      expect(r2.body.data).toEqual({ reachable: true, provider: 'twilio', method: 'dns' });
      const bad = (await connector(line.agentId, { registrar_server: 'pbx.invalid' }).expect(201)).body.data;
      const r3 = await t.http.post(`/api/v1/pbx_extension_connectors/${bad.uuid}/test`).expect(200);
      expect(r3.body.data).toEqual({ reachable: false, provider: 'twilio', method: 'dns' });
    });

    it("another workspace can't read, change, delete, test or list a connector", async () => {
      const agent = await createAgent(t);
      const c = (await connector(agent.agent_uuid).expect(201)).body.data;
      await other.http.get(`/api/v1/pbx_extension_connectors/${c.uuid}`).expect(404);
      await other.http.patch(`/api/v1/pbx_extension_connectors/${c.uuid}`).send({ port: 5070 }).expect(404);
      await other.http.delete(`/api/v1/pbx_extension_connectors/${c.uuid}`).expect(404);
      await other.http.post(`/api/v1/pbx_extension_connectors/${c.uuid}/test`).expect(404);
      const list = await other.http.get('/api/v1/pbx_extension_connectors').expect(200);
      expect(list.body.data.items.map((x: { uuid: string }) => x.uuid)).not.toContain(c.uuid);
      // Nor attach one to this workspace's agent.
      const res = await other.http.post('/api/v1/pbx_extension_connectors').send({
        agent_uuid: agent.agent_uuid,
        registrar_server: 'pbx.example.com',
        username_extension: '1001',
        pbx_password: 'x',
      });
      expect(res.status).toBe(422);
      await t.http.get(`/api/v1/pbx_extension_connectors/${c.uuid}`).expect(200);
      expect((await t.http.get(`/api/v1/pbx_extension_connectors/${c.uuid}`)).body.data.port).toBe(5060);
    });
  });

  describe('SIP trunks and external numbers', () => {
    it('creates a connection with its number as external; lists both; /phone-numbers/trunks is not a uuid', async () => {
      const number = uniqueNumber();
      const res = await trunk({ phone_number: number, secondary_gateway: '192.0.2.20' });
      expect(res.status).toBe(201);
      const c = res.body.data;
      expect(c).toMatchObject({
        name: 'Head office',
        phone_number: number,
        gateway: 'sip.carrier.example',
        secondary_gateway: '192.0.2.20',
        username: 'trunk-user',
        has_password: true,
        provider: 'twilio',
        status: 'active',
      });
      expect(JSON.stringify(res.body)).not.toContain(TRUNK_PASSWORD);
      const listed = await t.http.get('/api/v1/channels/sip-trunk/connections').expect(200);
      expect(listed.body.data.items.map((x: { uuid: string }) => x.uuid)).toContain(c.uuid);

      const numbers = await t.http.get('/api/v1/phone-numbers/trunks').expect(200);
      const mine = numbers.body.data.items.find((n: { number: string }) => n.number === number);
      expect(mine).toMatchObject({
        uuid: c.phone_number_uuid,
        source: 'external',
        is_external: true,
        connection_uuid: c.uuid,
        agent_uuid: null,
      });
      // The phone numbers module still serves its own routes.
      const one = await t.http.get(`/api/v1/phone-numbers/${c.phone_number_uuid}`).expect(200);
      expect(one.body.data).toMatchObject({ number, source: 'external' });
      await t.http.get('/api/v1/phone-numbers/not-a-uuid').expect(422);
      // The same number twice: 409; a Twilio number has one owner across workspaces (inbound routing needs it).
      const again = await trunk({ phone_number: number });
      expect(again.status).toBe(409);
      const elsewhere = await other.http.post('/api/v1/channels/sip-trunk/connections').send({
        name: 'Theirs',
        phone_number: number,
        gateway: 'sip.carrier.example',
      });
      expect(elsewhere.status).toBe(409);
    });

    it('validates the gateway as a host only', async () => {
      for (const gateway of [
        'sip:carrier.example',
        'carrier.example:5060',
        'https://carrier.example',
        '-bad-.x',
      ]) {
        const res = await trunk({ gateway });
        expect(res.status).toBe(422);
        expect(res.body.error.field).toBe('gateway');
      }
      const sec = await trunk({ secondary_gateway: 'a b' });
      expect(sec.status).toBe(422);
      expect(sec.body.error.field).toBe('secondary_gateway');
    });

    it("binds a trunk's number to an agent for calls; another agent's without force is 409, with force it moves", async () => {
      const c = (await trunk().expect(201)).body.data;
      const a = await createAgent(t);
      const b = await createAgent(t);
      const bound = await t.http
        .post(`/api/v1/agents/${a.agent_uuid}/channels/call/sip-trunk`)
        .send({ connection_uuid: c.uuid })
        .expect(201);
      expect(bound.body.message).toBe('Bound');
      // The answer is the binding, not the whole agent.
      expect(bound.body.data).toEqual({
        agent_uuid: a.agent_uuid,
        connection_uuid: c.uuid,
        phone_number: c.phone_number,
      });
      const snap = await t.http.get(`/api/v1/phone-numbers/${c.phone_number_uuid}/channels`).expect(200);
      expect(snap.body.data.channels.call).toMatchObject({ bound: true, agent_uuid: a.agent_uuid });
      // Binding it again to the same agent is fine.
      await t.http
        .post(`/api/v1/agents/${a.agent_uuid}/channels/call/sip-trunk`)
        .send({ connection_uuid: c.uuid })
        .expect(201);
      const taken = await t.http
        .post(`/api/v1/agents/${b.agent_uuid}/channels/call/sip-trunk`)
        .send({ connection_uuid: c.uuid });
      expect(taken.status).toBe(409);
      expect(taken.body.error.code).toBe('CONFLICT');
      await t.http
        .post(`/api/v1/agents/${b.agent_uuid}/channels/call/sip-trunk`)
        .send({ connection_uuid: c.uuid, force: true })
        .expect(201);
      const moved = await t.http.get(`/api/v1/phone-numbers/${c.phone_number_uuid}/channels`).expect(200);
      expect(moved.body.data.channels.call.agent_uuid).toBe(b.agent_uuid);

      const unknown = await t.http
        .post(`/api/v1/agents/${b.agent_uuid}/channels/call/sip-trunk`)
        .send({ connection_uuid: MISSING });
      expect(unknown.status).toBe(422);
      expect(unknown.body.error.field).toBe('connection_uuid');
      await t.http
        .post(`/api/v1/agents/${MISSING}/channels/call/sip-trunk`)
        .send({ connection_uuid: c.uuid })
        .expect(404);
    });

    it('registers external numbers and assigns them to a trunk and an agent', async () => {
      const c = (await trunk().expect(201)).body.data;
      const agent = await createAgent(t);
      const number = uniqueNumber();
      const created = await t.http.post('/api/v1/phone-numbers/trunks').send({ number }).expect(201);
      expect(created.body.data).toMatchObject({
        number,
        source: 'external',
        is_external: true,
        connection_uuid: null,
        agent_uuid: null,
        provider: 'twilio',
      });
      const id = created.body.data.uuid;
      const assigned = await t.http
        .put('/api/v1/phone-numbers/trunks/assign')
        .send({ phone_number_uuid: id, connection_uuid: c.uuid, agent_uuid: agent.agent_uuid })
        .expect(200);
      expect(assigned.body.data).toMatchObject({ connection_uuid: c.uuid, agent_uuid: agent.agent_uuid });
      const detached = await t.http
        .put('/api/v1/phone-numbers/trunks/assign')
        .send({ phone_number_uuid: id, connection_uuid: null })
        .expect(200);
      expect(detached.body.data).toMatchObject({ connection_uuid: null, agent_uuid: agent.agent_uuid });
      // With a trunk named at registration.
      const carried = await t.http
        .post('/api/v1/phone-numbers/trunks')
        .send({ number: uniqueNumber(), connection_uuid: c.uuid })
        .expect(201);
      expect(carried.body.data.connection_uuid).toBe(c.uuid);
      // A number that is not external is not assigned.
      const own = await t.http
        .post('/api/v1/phone-numbers')
        .send({ number: uniqueNumber('+1646'), provider: 'sandbox' })
        .expect(201);
      const refused = await t.http
        .put('/api/v1/phone-numbers/trunks/assign')
        .send({ phone_number_uuid: own.body.data.uuid, connection_uuid: c.uuid });
      expect(refused.status).toBe(409);
      const missing = await t.http
        .put('/api/v1/phone-numbers/trunks/assign')
        .send({ phone_number_uuid: MISSING, connection_uuid: c.uuid });
      expect(missing.status).toBe(422);
      expect(missing.body.error.field).toBe('phone_number_uuid');
    });

    it("takes the source product's bodies: phone_number, channel, agent_uuid, direction and sip beside today's names", async () => {
      const c = (await trunk().expect(201)).body.data;
      const agent = await createAgent(t);
      const number = uniqueNumber();
      const created = await t.http
        .post('/api/v1/phone-numbers/trunks')
        .send({
          phone_number: number,
          channel: 'call',
          agent_uuid: agent.agent_uuid,
          direction: 'inbound',
          sip: { connection_uuid: c.uuid },
        })
        .expect(201);
      expect(created.body.data).toMatchObject({
        number,
        source: 'external',
        connection_uuid: c.uuid,
        agent_uuid: agent.agent_uuid,
        direction: 'inbound',
        channel_settings: { voice: { enabled: false }, inbound: { enabled: true } },
      });
      const snap = await t.http.get(`/api/v1/phone-numbers/${created.body.data.uuid}/channels`).expect(200);
      expect(snap.body.data.channels.call).toMatchObject({ bound: true, agent_uuid: agent.agent_uuid });

      // sip with a gateway: a trunk of its own carries the number (its password sealed).
      const second = uniqueNumber();
      const inline = await t.http
        .post('/api/v1/phone-numbers/trunks')
        .send({
          phone_number: second,
          sip: { gateway: 'sip2.carrier.example', username: 'inline-user', password: TRUNK_PASSWORD },
        })
        .expect(201);
      expect(JSON.stringify(inline.body)).not.toContain(TRUNK_PASSWORD);
      expect(inline.body.data).toMatchObject({ number: second, direction: 'both', agent_uuid: null });
      const trunks = await t.http.get('/api/v1/channels/sip-trunk/connections?per_page=100').expect(200);
      expect(
        trunks.body.data.items.find((x: { uuid: string }) => x.uuid === inline.body.data.connection_uuid),
      ).toMatchObject({
        name: second,
        phone_number: second,
        gateway: 'sip2.carrier.example',
        username: 'inline-user',
        has_password: true,
      });

      // Assign names the number by phone_number, the trunk by sip.connection_uuid.
      const assigned = await t.http
        .put('/api/v1/phone-numbers/trunks/assign')
        .send({
          phone_number: second,
          agent_uuid: agent.agent_uuid,
          direction: 'outbound',
          sip: { connection_uuid: c.uuid },
        })
        .expect(200);
      expect(assigned.body.data).toMatchObject({
        uuid: inline.body.data.uuid,
        connection_uuid: c.uuid,
        agent_uuid: agent.agent_uuid,
        direction: 'outbound',
        channel_settings: { voice: { enabled: true }, inbound: { enabled: false } },
      });

      // Both spellings agreeing is fine; disagreeing is 422 on the source name.
      const same = uniqueNumber();
      await t.http
        .post('/api/v1/phone-numbers/trunks')
        .send({ number: same, phone_number: same })
        .expect(201);
      const refusals: [string, 'post' | 'put', Record<string, unknown>, string, string][] = [
        [
          '/api/v1/phone-numbers/trunks',
          'post',
          { number: uniqueNumber(), phone_number: uniqueNumber() },
          'phone_number',
          'VALIDATION_ERROR',
        ],
        [
          '/api/v1/phone-numbers/trunks',
          'post',
          {
            number: uniqueNumber(),
            connection_uuid: c.uuid,
            sip: { connection_uuid: inline.body.data.connection_uuid },
          },
          'sip.connection_uuid',
          'VALIDATION_ERROR',
        ],
        [
          '/api/v1/phone-numbers/trunks',
          'post',
          { number: uniqueNumber(), sip: { connection_uuid: c.uuid, gateway: 'sip.carrier.example' } },
          'sip.gateway',
          'VALIDATION_ERROR',
        ],
        [
          '/api/v1/phone-numbers/trunks',
          'post',
          { number: uniqueNumber(), sip: { username: 'u' } },
          'sip.gateway',
          'VALIDATION_ERROR',
        ],
        ['/api/v1/phone-numbers/trunks', 'post', {}, 'number', 'VALIDATION_ERROR'],
        ['/api/v1/phone-numbers/trunks', 'post', { phone_number: '12345' }, 'phone_number', 'INVALID_FORMAT'],
        [
          '/api/v1/phone-numbers/trunks',
          'post',
          { number: uniqueNumber(), channel: 'sms' },
          'channel',
          'INVALID_FORMAT',
        ],
        [
          '/api/v1/phone-numbers/trunks',
          'post',
          { number: uniqueNumber(), direction: 'sideways' },
          'direction',
          'INVALID_FORMAT',
        ],
        [
          '/api/v1/phone-numbers/trunks',
          'post',
          { number: uniqueNumber(), agent_uuid: MISSING },
          'agent_uuid',
          'VALIDATION_ERROR',
        ],
        [
          '/api/v1/phone-numbers/trunks',
          'post',
          { number: uniqueNumber(), sip: { gateway: 'sip:x.example' } },
          'sip.gateway',
          'INVALID_FORMAT',
        ],
        [
          '/api/v1/phone-numbers/trunks/assign',
          'put',
          { phone_number_uuid: created.body.data.uuid, phone_number: second },
          'phone_number',
          'VALIDATION_ERROR',
        ],
        [
          '/api/v1/phone-numbers/trunks/assign',
          'put',
          { phone_number: uniqueNumber() },
          'phone_number',
          'VALIDATION_ERROR',
        ],
        [
          '/api/v1/phone-numbers/trunks/assign',
          'put',
          { connection_uuid: c.uuid },
          'phone_number_uuid',
          'VALIDATION_ERROR',
        ],
      ];
      for (const [path, method, body, field, code] of refusals) {
        const res = await t.http[method](path).send(body);
        expect([path, res.status]).toEqual([path, 422]);
        expect(res.body.error).toMatchObject({ field, code });
      }
      // The aliases are documented.
      const doc = (await app.http('docs.localhost').get('/docs/openapi.json').expect(200)).body;
      const schemas = doc.components.schemas;
      const createBody =
        doc.paths['/api/v1/phone-numbers/trunks'].post.requestBody.content['application/json'].schema;
      const assignBody =
        doc.paths['/api/v1/phone-numbers/trunks/assign'].put.requestBody.content['application/json'].schema;
      for (const ref of [createBody.$ref, assignBody.$ref]) {
        const props = schemas[ref.split('/').pop()].properties;
        expect(props.phone_number.description).toMatch(/alias/i);
        for (const key of ['channel', 'direction', 'agent_uuid', 'sip']) expect(props).toHaveProperty(key);
      }
    });

    it("another workspace can't list, use, bind or assign a workspace's trunks and numbers", async () => {
      const c = (await trunk().expect(201)).body.data;
      const theirs = await other.http.get('/api/v1/channels/sip-trunk/connections').expect(200);
      expect(theirs.body.data.items.map((x: { uuid: string }) => x.uuid)).not.toContain(c.uuid);
      const numbers = await other.http.get('/api/v1/phone-numbers/trunks').expect(200);
      expect(numbers.body.data.items.map((x: { uuid: string }) => x.uuid)).not.toContain(c.phone_number_uuid);
      const agent = await createAgent(other);
      const bind = await other.http
        .post(`/api/v1/agents/${agent.agent_uuid}/channels/call/sip-trunk`)
        .send({ connection_uuid: c.uuid });
      expect(bind.status).toBe(422);
      const mine = await createAgent(t);
      await other.http
        .post(`/api/v1/agents/${mine.agent_uuid}/channels/call/sip-trunk`)
        .send({ connection_uuid: c.uuid })
        .expect(404);
      const assign = await other.http
        .put('/api/v1/phone-numbers/trunks/assign')
        .send({ phone_number_uuid: c.phone_number_uuid, connection_uuid: null });
      expect(assign.status).toBe(422);
      const number = await other.http.post('/api/v1/phone-numbers/trunks').send({
        number: uniqueNumber(),
        connection_uuid: c.uuid,
      });
      expect(number.status).toBe(422);
      const still = await t.http.get('/api/v1/phone-numbers/trunks').expect(200);
      expect(
        still.body.data.items.find((n: { uuid: string }) => n.uuid === c.phone_number_uuid),
      ).toMatchObject({
        connection_uuid: c.uuid,
      });
    });
  });

  describe('Twilio over SIP', () => {
    const bindTrunk = async (body: Record<string, unknown> = {}) => {
      const c = (await trunk(body).expect(201)).body.data;
      const agent = await createAgent(t);
      await t.http
        .post(`/api/v1/agents/${agent.agent_uuid}/channels/call/sip-trunk`)
        .send({ connection_uuid: c.uuid })
        .expect(201);
      return { c, agentId: agent.agent_uuid as string };
    };

    it('dials a trunk number as sip:<to>@<gateway> with SipAuthUsername and SipAuthPassword', async () => {
      const { c, agentId } = await bindTrunk();
      const res = await t.http
        .post('/api/v1/call')
        .send({ agent_uuid: agentId, to: '+14155550133' })
        .expect(201);
      const id = res.body.data.uuid as string;
      await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined, 10_000, 'dialled');
      const dial = twilio.sipDials().find((d) => String(d.form.Twiml).includes(id))!;
      expect(dial.form).toMatchObject({
        To: 'sip:+14155550133@sip.carrier.example',
        From: c.phone_number,
        SipAuthUsername: 'trunk-user',
        SipAuthPassword: TRUNK_PASSWORD,
      });
      expect((await callOf(id)).from_number).toBe(c.phone_number);
    });

    it('tries the secondary gateway once when Twilio refuses the first', async () => {
      const { agentId } = await bindTrunk({ secondary_gateway: 'backup.carrier.example', username: null });
      twilio.dialError = { status: 400, code: 13224, message: 'Invalid SIP address' };
      const res = await t.http
        .post('/api/v1/call')
        .send({ agent_uuid: agentId, to: '+14155550134' })
        .expect(201);
      const id = res.body.data.uuid as string;
      await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined, 10_000, 'dialled');
      const tries = twilio.sipDials().filter((d) => String(d.form.Twiml).includes(id));
      expect(tries.map((d) => d.form.To)).toEqual([
        'sip:+14155550134@sip.carrier.example',
        'sip:+14155550134@backup.carrier.example',
      ]);
      expect(tries[1].form).not.toHaveProperty('SipAuthUsername');
      expect(tries[1].form.SipAuthPassword).toBe(TRUNK_PASSWORD);
    });

    it('an inbound call through a SIP domain is routed by the dialled number in the SIP address', async () => {
      const { c, agentId } = await bindTrunk();
      const form = {
        CallSid: 'CA' + 'd'.repeat(32),
        To: `sip:${c.phone_number}@acme.sip.twilio.com;user=phone`,
        From: 'sip:+14155550177@sip.carrier.example',
        CallStatus: 'ringing',
      };
      const res = await postSigned(app.url, `${PUBLIC}/hooks/v1/twilio/voice/inbound`, form).expect(200);
      expect(res.text).toContain('<Connect><Stream');
      const calls = await t.http.get(`/api/v1/calls?phone_number_uuid=${c.phone_number_uuid}`).expect(200);
      expect(calls.body.data.items[0]).toMatchObject({
        direction: 'Inbound',
        status: 'ringing',
        communication: 'phone',
        from_number: '+14155550177',
        to_number: c.phone_number,
        agent: { uuid: agentId },
      });
      // An unknown dialled number is not in service.
      const unknown = await postSigned(app.url, `${PUBLIC}/hooks/v1/twilio/voice/inbound`, {
        ...form,
        CallSid: 'CA' + 'e'.repeat(32),
        To: 'sip:+19998887777@acme.sip.twilio.com',
      }).expect(200);
      expect(unknown.text).toContain('This number is not in service.');
    });

    it("forwards to an extension with <Dial><Sip> on the agent's PBX connector and its credentials", async () => {
      const line = await twilioLine(t, { settings: { voice: { end_of_turn_silence_ms: 300 } } });
      await t.http
        .post(`/api/v1/agents/${line.agentId}/routing-rules`)
        .send({
          trigger_keyword: 'support',
          detection_mode: 'exact',
          voice_response: 'Putting you through to support.',
          destination_type: 'extension',
          destination: '1002',
        })
        .expect(201);
      await connector(line.agentId, {
        registrar_server: 'pbx.example.com',
        connection_type: 'tls',
        port: 5061,
        auth_username: 'agent-1001',
        auth_password: AUTH_PASSWORD,
      }).expect(201);
      speech.transcripts.push('support');
      const res = await t.http.post('/api/v1/call').send({ agent_uuid: line.agentId, to: '+14155550150' });
      expect(res.status).toBe(201);
      const id = res.body.data.uuid as string;
      const sid = (await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined)) as string;
      const twiml = String(twilio.dials().find((d) => String(d.form.Twiml).includes(id))!.form.Twiml);
      const token = /name="token" value="([^"]+)"/.exec(twiml)![1];
      const client = await MediaClient.connect(app.url, id, token, sid);
      clients.push(client);
      await waitFor(async () => ((await callOf(id)).status === 'in-progress' ? true : undefined));
      client.play('silence', 600);
      client.utter(400, 600);
      const update = await waitFor(async () => twilio.sipForwards(sid)[0], 20_000, 'the <Sip> forward');
      const dial = String(update.form.Twiml);
      expect(dial).toMatch(
        /<Sip [^>]*username="agent-1001"[^>]*>sip:1002@pbx\.example\.com:5061;transport=tls<\/Sip><\/Dial>/,
      );
      expect(dial).toContain(`password="${AUTH_PASSWORD}"`);
      const answered = /statusCallback="([^"]+)"/.exec(dial)![1].replace(/&amp;/g, '&');
      client.stop();
      await postSigned(app.url, answered, {
        CallSid: 'CA' + 'f'.repeat(32),
        CallStatus: 'in-progress',
      }).expect(204);
      const forwarded = await waitFor(
        async () => ((await callOf(id)).handled_by === 'Human' ? callOf(id) : undefined),
        20_000,
        'handled by a human',
      );
      expect(forwarded.forwarded_to).toMatchObject({ type: 'extension', value: '1002' });
      // The call's conversation says so too.
      const conversation = await t.http.get(`/api/v1/conversations/${id}`).expect(200);
      expect(conversation.body.data.handled_by).toBe('Human');
    }, 40_000);

    it('an extension forward without a PBX connector fails and the AI carries on (sandbox)', async () => {
      const line = await sandboxLine(t);
      await t.http
        .post(`/api/v1/agents/${line.agentId}/routing-rules`)
        .send({
          trigger_keyword: 'support',
          detection_mode: 'exact',
          voice_response: 'Putting you through.',
          voice_on_error: 'Support is away.',
          destination_type: 'extension',
          destination: '1002',
        })
        .expect(201);
      const sim = async () => {
        const call = (
          await t.http
            .post('/api/v1/calls/simulate-inbound')
            .send({ to: line.number, from: '+14155550188' })
            .expect(201)
        ).body.data;
        return (
          await t.http
            .post(`/api/v1/calls/${call.uuid}/simulate`)
            .send({ action: 'say', text: 'support' })
            .expect(200)
        ).body.data;
      };
      const without = await sim();
      expect(without.call).toMatchObject({ handled_by: 'AI', forwarded_to: null });
      const words = (
        await t.http.get(`/api/v1/conversations/${without.call.uuid}/messages?per_page=100`).expect(200)
      ).body.data.items.map((m: { content: string }) => m.content);
      expect(words).toContain('Support is away.');
      // With the agent's connector the sandbox connects the extension.
      await connector(line.agentId).expect(201);
      const withConnector = await sim();
      expect(withConnector.call).toMatchObject({
        handled_by: 'Human',
        forwarded_to: { type: 'extension', value: '1002' },
      });
    });
  });

  it('passwords never reach answers, the request log or the log lines', async () => {
    const agent = await createAgent(t);
    const c = (
      await connector(agent.agent_uuid, { auth_username: 'u1', auth_password: AUTH_PASSWORD }).expect(201)
    ).body.data;
    await t.http
      .patch(`/api/v1/pbx_extension_connectors/${c.uuid}`)
      .send({ pbx_password: PBX_PASSWORD })
      .expect(200);
    await trunk().expect(201);
    const answers = [
      await t.http.get('/api/v1/pbx_extension_connectors?per_page=100'),
      await t.http.get(`/api/v1/pbx_extension_connectors/${c.uuid}`),
      await t.http.get('/api/v1/channels/sip-trunk/connections?per_page=100'),
      await t.http.get('/api/v1/phone-numbers/trunks?per_page=100'),
    ];
    for (const a of answers) for (const s of SECRETS) expect(JSON.stringify(a.body)).not.toContain(s);
    const requests = await waitFor(
      async () => {
        const r = await t.http.get('/api/v1/logs/requests?per_page=100').expect(200);
        return r.body.data.items.some((i: { path?: string }) =>
          String(i.path).includes('pbx_extension_connectors'),
        )
          ? r
          : undefined;
      },
      15_000,
      'request log rows',
    );
    for (const s of SECRETS) expect(JSON.stringify(requests.body)).not.toContain(s);
    const logs = app.logs().join('');
    expect(logs).toContain('pbx_extension_connectors');
    for (const s of SECRETS) expect(logs).not.toContain(s);
  });
});
