import { createAgent } from './agent.factory';
import type { TestTenant } from './workspace.factory';

let seq = 0;
/** A Twilio number of the tenant (unique across the run), bound to a new agent's call channel. */
export async function twilioLine(
  t: TestTenant,
  agentBody: Record<string, unknown> = {},
): Promise<{ agentId: string; numberId: string; number: string }> {
  const agent = await createAgent(t, agentBody);
  seq += 1;
  const number = `+1646${200 + ((process.pid * 7 + seq) % 800)}${String((Date.now() + seq) % 10000).padStart(4, '0')}`;
  const created = await t.http
    .post('/api/v1/phone-numbers')
    .send({ number, provider: 'twilio', capabilities: { call: true } });
  if (created.status !== 201) throw new Error(`number: ${created.status} ${JSON.stringify(created.body)}`);
  const numberId = created.body.data.uuid as string;
  const bound = await t.http
    .post(`/api/v1/agents/${agent.agent_uuid}/phone-numbers`)
    .send({ phone_number_uuid: numberId, channels: ['call'] });
  if (bound.status !== 201) throw new Error(`bind: ${bound.status} ${JSON.stringify(bound.body)}`);
  return { agentId: agent.agent_uuid as string, numberId, number };
}
