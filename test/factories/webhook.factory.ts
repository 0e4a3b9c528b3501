import { DataSource } from 'typeorm';
import type { EventType } from '@/modules/events/outbox-event.entity';
import { OutboxService } from '@/modules/events/outbox.service';
import type { TestApp } from '../setup/test-app';
import type { TestTenant } from './workspace.factory';

/** Writes a domain event to the outbox the way the domain modules do: in a transaction, through the service. */
export async function emitEvent(
  app: TestApp,
  tenant: TestTenant,
  type: EventType,
  data: Record<string, unknown> = {},
  agentId: string | null = null,
): Promise<void> {
  const outbox = app.get<OutboxService>(OutboxService);
  await app
    .get<DataSource>(DataSource)
    .transaction((m) => outbox.record(m, tenant.workspaceId, [{ type, agentId, data }]));
}

export async function createWebhook(
  tenant: TestTenant,
  body: Record<string, unknown>,
): Promise<{ uuid: string; [key: string]: unknown }> {
  const res = await tenant.http.post('/api/v1/webhooks').send(body);
  if (res.status !== 201) throw new Error(`webhook not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}
