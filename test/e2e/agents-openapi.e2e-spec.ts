import { client } from '../setup/test-app';
import { useTestApp } from '../setup/suite';

describe('Agents and phone numbers in the OpenAPI document', () => {
  const suite = useTestApp();
  let doc: any;

  beforeAll(async () => {
    const res = await client(suite.app.url, 'localhost').get('/docs/openapi.json');
    doc = res.body;
  });

  it('documents every route with a tag, a summary, its success answer and its errors', () => {
    const expected: [string, string, number][] = [
      ['get', '/api/v1/agents', 200],
      ['post', '/api/v1/agents', 201],
      ['get', '/api/v1/agents/{uuid}', 200],
      ['patch', '/api/v1/agents/{uuid}', 200],
      ['delete', '/api/v1/agents/{uuid}', 200],
      ['post', '/api/v1/agents/{uuid}/rules/test', 200],
      ['get', '/api/v1/agents/{uuid}/channels', 200],
      ['post', '/api/v1/agents/{uuid}/phone-numbers', 201],
      ['delete', '/api/v1/agents/{uuid}/phone-numbers/{phoneNumberUuid}', 200],
      ['post', '/api/v1/agents/{uuid}/channels/whatsapp/bind', 200],
      ['post', '/api/v1/agents/{uuid}/channels/whatsapp/unbind', 200],
      ['post', '/api/v1/agents/{uuid}/channels/messenger/bind', 200],
      ['post', '/api/v1/agents/{uuid}/channels/messenger/unbind', 200],
      ['get', '/api/v1/evaluate/default', 200],
      ['put', '/api/v1/evaluate/default', 200],
      ['get', '/api/v1/agents/{uuid}/evaluate', 200],
      ['put', '/api/v1/agents/{uuid}/evaluate', 200],
      ['delete', '/api/v1/agents/{uuid}/evaluate', 200],
      ['post', '/api/v1/agents/{uuid}/evaluate/assign', 200],
      ['get', '/api/v1/memorize/default', 200],
      ['put', '/api/v1/memorize/default', 200],
      ['get', '/api/v1/agents/{uuid}/memorize', 200],
      ['put', '/api/v1/agents/{uuid}/memorize', 200],
      ['post', '/api/v1/agents/{uuid}/memorize/reset', 200],
      ['get', '/api/v1/flow/agents', 200],
      ['get', '/api/v1/phone-numbers', 200],
      ['post', '/api/v1/phone-numbers', 201],
      ['get', '/api/v1/phone-numbers/channels', 200],
      ['get', '/api/v1/phone-numbers/{uuid}', 200],
      ['delete', '/api/v1/phone-numbers/{uuid}', 200],
      ['get', '/api/v1/phone-numbers/{uuid}/channels', 200],
    ];
    for (const c of ['guidelines', 'notes', 'training', 'procedures', 'intents', 'webhooks']) {
      expected.push(['post', `/api/v1/agents/{uuid}/${c}`, 201], ['put', `/api/v1/agents/{uuid}/${c}`, 200]);
      expected.push(
        ['patch', `/api/v1/agents/{uuid}/${c}/{itemUuid}`, 200],
        ['delete', `/api/v1/agents/{uuid}/${c}/{itemUuid}`, 200],
      );
    }
    for (const c of ['routing-rules', 'guard-rules']) {
      expected.push(['post', `/api/v1/agents/{uuid}/${c}`, 201], ['put', `/api/v1/agents/{uuid}/${c}`, 200]);
      expected.push(
        ['patch', `/api/v1/agents/{uuid}/${c}/{ruleUuid}`, 200],
        ['delete', `/api/v1/agents/{uuid}/${c}/{ruleUuid}`, 200],
      );
    }
    for (const [method, path, status] of expected) {
      const op = doc.paths[path]?.[method];
      expect({ method, path, documented: !!op }).toEqual({ method, path, documented: true });
      expect(op.tags.length).toBeGreaterThan(0);
      expect(op.summary).toBeTruthy();
      expect(op.responses[String(status)]).toBeDefined();
      expect(op.responses['404']).toBeDefined();
      expect(op.security).toEqual([{ bearer: [] }]);
    }
    expect(doc.paths['/api/v1/agents/{uuid}/webhooks'].post.responses['409'].description).toMatch(
      /WEBHOOK_LIMIT_REACHED/,
    );
    expect(doc.paths['/api/v1/agents/{uuid}/routing-rules'].post.requestBody).toBeDefined();
    expect(doc.components.schemas.AgentResponse.properties.routing_rules).toBeDefined();
    expect(doc.components.schemas.WebhookResponse.properties.secret_key).toBeUndefined();
  });
});
