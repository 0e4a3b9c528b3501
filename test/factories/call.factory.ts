import { createAgent } from './agent.factory';
import type { TestTenant } from './workspace.factory';

let seq = 0;
/** A sandbox destination whose last four digits choose the outcome (`0002` busy, `0009` rings, ...). */
export function sandboxDestination(lastFour = '7777'): string {
  seq += 1;
  // NANP exchanges start with 2-9.
  return `+1415${200 + ((process.pid * 13 + seq) % 800)}${lastFour}`;
}

let numberSeq = 0;
/** A sandbox number of the tenant, bound to the agent's call (and whatsapp_call) channels. */
export async function sandboxLine(
  t: TestTenant,
  agentBody: Record<string, unknown> = {},
): Promise<{ agentId: string; numberId: string; number: string }> {
  const agent = await createAgent(t, agentBody);
  numberSeq += 1;
  const number = `+1628${200 + ((process.pid * 31 + numberSeq) % 800)}${String(numberSeq % 10000).padStart(4, '0')}`;
  const created = await t.http
    .post('/api/v1/phone-numbers')
    .send({ number, provider: 'sandbox', capabilities: { call: true, whatsapp_call: true } });
  if (created.status !== 201) throw new Error(`number: ${created.status} ${JSON.stringify(created.body)}`);
  const numberId = created.body.data.uuid as string;
  const bound = await t.http
    .post(`/api/v1/agents/${agent.agent_uuid}/phone-numbers`)
    .send({ phone_number_uuid: numberId, channels: ['call', 'whatsapp_call'] });
  if (bound.status !== 201) throw new Error(`bind: ${bound.status} ${JSON.stringify(bound.body)}`);
  return { agentId: agent.agent_uuid as string, numberId, number };
}
