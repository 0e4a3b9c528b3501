import type { Test } from 'supertest';
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

/** A request to one call's route: method, path and, for a POST, a body that passes validation. */
export type CallRoute = [method: 'get' | 'post' | 'delete', path: string, body?: Record<string, unknown>];

/** Every route addressing one call other than `GET /calls/{uuid}`: the feed, the recording, simulate, the actions. */
export function callRoutes(id: string): CallRoute[] {
  return [
    ['get', `/api/v1/calls/${id}/live`],
    ['get', `/api/v1/calls/${id}/recording`],
    ['delete', `/api/v1/calls/${id}/recording`],
    ['post', `/api/v1/calls/${id}/simulate`, { action: 'say', text: 'hi' }],
    ['post', `/api/v1/calls/action/${id}/say`, { message: 'hi' }],
    ['post', `/api/v1/calls/action/${id}/forward`, { number: '+14155550123' }],
    ['post', `/api/v1/calls/action/${id}/hangup`, {}],
    ['post', `/api/v1/calls/action/${id}/mute`, {}],
    ['post', `/api/v1/calls/action/${id}/unmute`, {}],
    ['post', `/api/v1/calls/action/${id}/dtmf`, { digits: '1' }],
  ];
}

/** Sends a call route's request as the tenant. */
export function requestRoute(t: TestTenant, [method, path, body]: CallRoute): Test {
  const req = t.http[method](path);
  return body ? req.send(body) : req;
}
