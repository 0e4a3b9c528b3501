import { expect } from '@jest/globals';
import { createContact } from './contact.factory';
import type { TestTenant } from './workspace.factory';

/** Every day, all day: campaigns in tests that are not about windows dial whenever due. */
export const ALWAYS = {
  days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  start_time: '00:00',
  end_time: '23:59',
};

async function created(t: TestTenant, path: string, body: object): Promise<Record<string, any>> {
  const res = await t.http.post(path).send(body);
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export function createPool(t: TestTenant, body: object = {}): Promise<Record<string, any>> {
  return created(t, '/api/v1/pools', { name: 'Test pool', ...body });
}

export function createRule(t: TestTenant, body: object = {}): Promise<Record<string, any>> {
  return created(t, '/api/v1/rules', { name: 'Test rule', ...body });
}

export function createCampaign(t: TestTenant, body: object): Promise<Record<string, any>> {
  return created(t, '/api/v1/campaigns', { name: 'Test campaign', window: ALWAYS, ...body });
}

/** Contacts made through the API, with the phone numbers given (or unique ones). */
export async function contactsWith(t: TestTenant, phones: (string | undefined)[], body: object = {}) {
  const out: Record<string, any>[] = [];
  for (const phone of phones)
    out.push(await createContact(t, phone ? { phone_number: phone, ...body } : body));
  return out;
}

export async function addMembers(
  t: TestTenant,
  poolId: string,
  contactIds: string[],
  priority?: number,
): Promise<Record<string, any>> {
  const res = await t.http
    .post(`/api/v1/pools/${poolId}/contacts`)
    .send({ contact_uuids: contactIds, ...(priority === undefined ? {} : { priority }) });
  expect(res.status).toBe(200);
  return res.body;
}

export async function tasksOf(t: TestTenant, query: string): Promise<Record<string, any>[]> {
  const res = await t.http.get(`/api/v1/tasks?per_page=100&${query}`).expect(200);
  return res.body.data.items;
}
