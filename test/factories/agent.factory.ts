import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import type { TestTenant } from './workspace.factory';

/**
 * The one place tests make agents: `createAgent` through the API (the whole agent), `createAgentId` the same
 * answering its uuid, and `insertAgent` a bare row for tests of other modules that only need one to exist.
 */

/** An agent made through the API; answers the whole agent. */
export async function createAgent(tenant: TestTenant, body: Record<string, unknown> = {}): Promise<any> {
  const res = await tenant.http.post('/api/v1/agents').send({ name: 'Test agent', ...body });
  if (res.status !== 201) throw new Error(`createAgent failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** The uuid of an agent made through the API. */
export async function createAgentId(tenant: TestTenant, body: Record<string, unknown> = {}): Promise<string> {
  return ((await createAgent(tenant, body)) as { agent_uuid: string }).agent_uuid;
}

/** A bare agent row written straight into the database; answers its id. */
export async function insertAgent(
  db: DataSource | EntityManager,
  workspaceId: string,
  name = 'Agent',
): Promise<string> {
  const id = newId();
  await db.query(`INSERT INTO agents (id, workspace_id, name) VALUES ($1, $2, $3)`, [id, workspaceId, name]);
  return id;
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
    .send({ number: uniqueUsNumber(), provider: 'sandbox', ...body });
  if (res.status !== 201)
    throw new Error(`createPhoneNumber failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}
