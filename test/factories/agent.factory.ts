import type { TestTenant } from './workspace.factory';

/** An agent made through the API; answers the whole agent. */
export async function createAgent(tenant: TestTenant, body: Record<string, unknown> = {}): Promise<any> {
  const res = await tenant.http.post('/api/v1/agents').send({ name: 'Test agent', ...body });
  if (res.status !== 201) throw new Error(`createAgent failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

let seq = 0;
/** A valid US number, different on every call of the run. */
export function uniqueUsNumber(): string {
  seq += 1;
  return `+1415555${String((process.pid * 7 + seq) % 10000).padStart(4, '0')}`;
}

/** A registered phone number of the workspace. */
export async function createPhoneNumber(
  tenant: TestTenant,
  body: Record<string, unknown> = {},
): Promise<any> {
  const res = await tenant.http
    .post('/api/v1/phone-numbers')
    .send({ number: uniqueUsNumber(), provider: 'twilio', ...body });
  if (res.status !== 201)
    throw new Error(`createPhoneNumber failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}
