import type { TestTenant } from './workspace.factory';
import { createAgent } from './agent.factory';

/** An agent with the given intents (through the API); answers the whole agent. */
export async function agentWithIntents(
  t: TestTenant,
  intents: Record<string, unknown>[],
  body: Record<string, unknown> = {},
): Promise<any> {
  const agent = await createAgent(t, body);
  const res = await t.http.put(`/api/v1/agents/${agent.agent_uuid}/intents`).send({ intents });
  if (res.status !== 200) throw new Error(`intents: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Sets and publishes an intent's action; answers the deployed action. */
export async function deployAction(
  t: TestTenant,
  agentId: string,
  intentId: string,
  action: { type: string; config: Record<string, unknown> },
): Promise<any> {
  const path = `/api/v1/agents/${agentId}/intents/${intentId}/event`;
  const put = await t.http.put(path).send(action);
  if (put.status !== 200) throw new Error(`action: ${put.status} ${JSON.stringify(put.body)}`);
  const published = await t.http.post(`${path}/publish`);
  if (published.status !== 200)
    throw new Error(`publish: ${published.status} ${JSON.stringify(published.body)}`);
  return published.body.data;
}

/** A chat conversation with the agent; answers its uuid. */
export async function openChat(t: TestTenant, agentId: string, contactId?: string): Promise<string> {
  const res = await t.http
    .post('/api/v1/conversations')
    .send({ agent_uuid: agentId, channel: 'chat', ...(contactId ? { contact_uuid: contactId } : {}) });
  if (res.status !== 201) throw new Error(`conversation: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.uuid as string;
}
