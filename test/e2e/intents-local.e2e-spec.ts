import { agentWithIntents, openChat } from '../factories/intent.factory';
import { useTestApp } from '../setup/suite';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

/** No language model configured: the local classifier fires intents by their phrases. */
describe('intents without a model: the local classifier', () => {
  const suite = useTestApp({ servers: { hooks: () => WebhookReceiver.start() }, tenants: ['t', 'other'] });

  const opening = (url: string) => ({
    name: 'Opening hours',
    key: 'opening_hours',
    description: 'when is the shop open',
    confidence_threshold: 0.4,
    webhook: { url, auth_token: 'local-token' },
    parameters: [{ key: 'store', type: 'string', default: 'main', required: true }],
  });

  it('fires the intent whose phrases match above its threshold, with defaults only, and says its response', async () => {
    suite.hooks.on('/hours', () => ({ status: 200, body: JSON.stringify({ response: 'We open at 9.' }) }));
    const agent = await agentWithIntents(suite.t, [opening(suite.hooks.url('/hours'))]);
    await suite.t.http
      .post(`/api/v1/agents/${agent.agent_uuid}/training`)
      .send({ content: 'what time do you open', intent: 'opening_hours', response: 'At 9.' })
      .expect(201);
    await suite.t.http
      .post('/api/v1/webhooks')
      .send({ url: suite.hooks.url('/events'), events: ['intent_call'], is_active: true })
      .expect(201);
    const conversation = await openChat(suite.t, agent.agent_uuid);
    const turn = await suite.t.http
      .post(`/api/v1/conversations/${conversation}/messages`)
      .send({ content: 'What time do you open?' })
      .expect(201);
    expect(turn.body.data.reply).toMatchObject({ sender: 'agent', content: 'We open at 9.' });
    const [hit] = suite.hooks.at('/hours');
    expect(hit.headers.authorization).toBe('Bearer local-token');
    expect(JSON.parse(hit.body).parameters).toEqual({ store: 'main' });
    const event = await waitFor(async () => suite.hooks.at('/events')[0]);
    expect(JSON.parse(event.body).data).toMatchObject({ status: 'succeeded', parameters: { store: 'main' } });

    // Words far from every phrase fire nothing; the turn says why there is no reply.
    const none = await suite.t.http
      .post(`/api/v1/conversations/${conversation}/messages`)
      .send({ content: 'zzz qqq xxx' })
      .expect(201);
    expect(none.body.data.reply).toBeNull();
    expect(none.body.data.reply_unavailable_reason).toMatch(/No language model/);
    expect(suite.hooks.at('/hours')).toHaveLength(1);
  });

  it('rules/test answers the classifier pick without running it; another workspace sees none of it', async () => {
    suite.hooks.on('/dry-local', () => ({ status: 200, body: '{}' }));
    const agent = await agentWithIntents(suite.t, [opening(suite.hooks.url('/dry-local'))]);
    const res = await suite.t.http
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
    expect(suite.hooks.at('/dry-local')).toHaveLength(0);

    const mine = await agentWithIntents(suite.other, []);
    const foreign = await suite.other.http
      .post(`/api/v1/agents/${mine.agent_uuid}/rules/test`)
      .send({ utterance: 'when is the shop open', channel: 'chat' })
      .expect(200);
    expect(foreign.body.data.tools).toEqual({ method: 'local', calls: [], note: null });
    await suite.other.http
      .post(`/api/v1/agents/${agent.agent_uuid}/rules/test`)
      .send({ utterance: 'when is the shop open', channel: 'chat' })
      .expect(404);
  });
});
