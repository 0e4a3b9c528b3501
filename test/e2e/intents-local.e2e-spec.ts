import { agentWithIntents, openChat } from '../factories/intent.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { startTestApp, TestApp } from '../setup/test-app';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

/** No language model configured: the local classifier fires intents by their phrases. */
describe('intents without a model: the local classifier', () => {
  let hooks: WebhookReceiver;
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    hooks = await WebhookReceiver.start();
    app = await startTestApp();
    t = await createTenant(app);
    other = await createTenant(app);
  });
  afterAll(async () => {
    await app.close();
    await hooks.close();
  });

  const opening = (url: string) => ({
    name: 'Opening hours',
    key: 'opening_hours',
    description: 'when is the shop open',
    confidence_threshold: 0.4,
    webhook: { url, auth_token: 'local-token' },
    parameters: [{ key: 'store', type: 'string', default: 'main', required: true }],
  });

  it('fires the intent whose phrases match above its threshold, with defaults only, and says its response', async () => {
    hooks.on('/hours', () => ({ status: 200, body: JSON.stringify({ response: 'We open at 9.' }) }));
    const agent = await agentWithIntents(t, [opening(hooks.url('/hours'))]);
    await t.http
      .post(`/api/v1/agents/${agent.agent_uuid}/training`)
      .send({ content: 'what time do you open', intent: 'opening_hours', response: 'At 9.' })
      .expect(201);
    await t.http
      .post('/api/v1/webhooks')
      .send({ url: hooks.url('/events'), events: ['intent_call'], is_active: true })
      .expect(201);
    const conversation = await openChat(t, agent.agent_uuid);
    const turn = await t.http
      .post(`/api/v1/conversations/${conversation}/messages`)
      .send({ content: 'What time do you open?' })
      .expect(201);
    expect(turn.body.data.reply).toMatchObject({ sender: 'agent', content: 'We open at 9.' });
    const [hit] = hooks.at('/hours');
    expect(hit.headers.authorization).toBe('Bearer local-token');
    expect(JSON.parse(hit.body).parameters).toEqual({ store: 'main' });
    const event = await waitFor(async () => hooks.at('/events')[0]);
    expect(JSON.parse(event.body).data).toMatchObject({ status: 'succeeded', parameters: { store: 'main' } });

    // Words far from every phrase fire nothing; the turn says why there is no reply.
    const none = await t.http
      .post(`/api/v1/conversations/${conversation}/messages`)
      .send({ content: 'zzz qqq xxx' })
      .expect(201);
    expect(none.body.data.reply).toBeNull();
    expect(none.body.data.reply_unavailable_reason).toMatch(/No language model/);
    expect(hooks.at('/hours')).toHaveLength(1);
  });

  it('rules/test answers the classifier pick without running it; another workspace sees none of it', async () => {
    hooks.on('/dry-local', () => ({ status: 200, body: '{}' }));
    const agent = await agentWithIntents(t, [opening(hooks.url('/dry-local'))]);
    const res = await t.http
      .post(`/api/v1/agents/${agent.agent_uuid}/rules/test`)
      .send({ utterance: 'when is the shop open', channel: 'chat' })
      .expect(200);
    expect(res.body.data.tools).toMatchObject({
      method: 'local',
      calls: [
        { key: 'opening_hours', parameters: { store: 'main' }, valid: true, score: expect.any(Number) },
      ],
      note: null,
    });
    expect(res.body.data.tools.calls[0].score).toBeGreaterThanOrEqual(0.4);
    expect(hooks.at('/dry-local')).toHaveLength(0);

    const mine = await agentWithIntents(other, []);
    const foreign = await other.http
      .post(`/api/v1/agents/${mine.agent_uuid}/rules/test`)
      .send({ utterance: 'when is the shop open', channel: 'chat' })
      .expect(200);
    expect(foreign.body.data.tools).toEqual({ method: 'local', calls: [], note: null });
    await other.http
      .post(`/api/v1/agents/${agent.agent_uuid}/rules/test`)
      .send({ utterance: 'when is the shop open', channel: 'chat' })
      .expect(404);
  });
});
