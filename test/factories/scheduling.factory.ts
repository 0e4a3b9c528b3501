import { expect } from '@jest/globals';
import type { TestTenant } from './workspace.factory';

async function created(tenant: TestTenant, path: string, body: object): Promise<Record<string, any>> {
  const res = await tenant.http.post(path).send(body);
  expect(res.status).toBe(201);
  return res.body.data;
}

export function createAvailabilityType(tenant: TestTenant, body: object = {}): Promise<Record<string, any>> {
  return created(tenant, '/api/v1/availability-types', { name: '30 minutes', duration_minutes: 30, ...body });
}

export function createSchedule(tenant: TestTenant, body: object = {}): Promise<Record<string, any>> {
  return created(tenant, '/api/v1/schedules', { name: 'Demos', timezone: 'Europe/Paris', ...body });
}

export function createAppointment(tenant: TestTenant, body: object): Promise<Record<string, any>> {
  return created(tenant, '/api/v1/appointments', { title: 'Demo', ...body });
}

export function createRequest(tenant: TestTenant, body: object): Promise<Record<string, any>> {
  return created(tenant, '/api/v1/appointment-requests', { title: 'Intro call', ...body });
}

/** An ISO instant `days` from now at a whole hour (plus `minutes`), for slots that do not collide by chance. */
export function future(days: number, hour = 9, minutes = 0): string {
  const d = new Date(Date.now() + days * 86_400_000);
  d.setUTCHours(hour, minutes, 0, 0);
  return d.toISOString();
}
