import { expect } from '@jest/globals';
import type { TestTenant } from './workspace.factory';

let phoneCounter = Math.floor(Math.random() * 500_000);

/** A distinct valid UK mobile number (+44 79 and eight digits). */
export function uniquePhone(): string {
  phoneCounter += 1;
  return `+4479${String(phoneCounter).padStart(8, '0')}`;
}

async function created(tenant: TestTenant, path: string, body: object): Promise<Record<string, any>> {
  const res = await tenant.http.post(path).send(body);
  expect(res.status).toBe(201);
  return res.body.data;
}

export function createContact(tenant: TestTenant, body: object = {}): Promise<Record<string, any>> {
  return created(tenant, '/api/v1/contacts', { name: 'Ada', phone_number: uniquePhone(), ...body });
}

export function createTag(tenant: TestTenant, body: object = {}): Promise<Record<string, any>> {
  return created(tenant, '/api/v1/contacts/tags', {
    name: `tag-${Math.random().toString(36).slice(2, 8)}`,
    color: '#FF8800',
    ...body,
  });
}

export function createField(tenant: TestTenant, body: object): Promise<Record<string, any>> {
  return created(tenant, '/api/v1/contacts/fields', body);
}

export function createStage(tenant: TestTenant, body: object = {}): Promise<Record<string, any>> {
  return created(tenant, '/api/v1/contacts/pipeline/stages', { name: 'Lead', ...body });
}
