import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { OutboxService } from '@/modules/events/outbox.service';
import type { DeliveryStatus, ProviderFailure } from '@/providers/messaging/messaging.port';
import { ProviderMessageResponse } from '@/modules/conversations/dto/message-view.response';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ProviderMessagesRepository } from './messaging.repositories';

const RANK: Record<DeliveryStatus, number> = {
  received: 0,
  queued: 0,
  sent: 1,
  delivered: 2,
  read: 3,
  failed: 4,
  undelivered: 4,
};
const FINAL = new Set<DeliveryStatus>(['failed', 'undelivered', 'received']);

/** A status moves a message forward only: never back (late `delivered` after `read`), never out of a final one. */
export function movesForward(current: DeliveryStatus, next: DeliveryStatus): boolean {
  if (FINAL.has(current)) return false;
  if (next === 'failed' || next === 'undelivered') return true;
  return RANK[next] > RANK[current];
}

/** Reads messages and applies delivery statuses (under the row's lock, with the `message_status` event). */
@Injectable()
export class MessageStatusService {
  constructor(
    private readonly messages: ProviderMessagesRepository,
    private readonly outbox: OutboxService,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async view(workspaceId: WorkspaceId, id: string): Promise<ProviderMessageResponse> {
    const row = await this.messages.view(workspaceId, id);
    if (!row) throw AppException.notFound('Message');
    return ProviderMessageResponse.of(row);
  }

  /** Applies the status when it moves the message forward; answers whether it did. */
  apply(
    workspaceId: WorkspaceId,
    id: string,
    status: DeliveryStatus,
    error: ProviderFailure | null = null,
  ): Promise<boolean> {
    return this.unitOfWork.run(async (m) => {
      const record = await this.messages.lock(workspaceId, id, m);
      if (!record || !movesForward(record.deliveryStatus, status)) return false;
      const previous = record.deliveryStatus;
      record.deliveryStatus = status;
      record.statusUpdatedAt = new Date();
      if (error) record.error = error;
      await this.messages.save(workspaceId, record, m);
      const view = (await this.messages.view(workspaceId, id, m))!;
      const message = ProviderMessageResponse.of(view);
      await this.outbox.record(m, workspaceId, [
        {
          type: 'message_status',
          agentId: view.agent_uuid,
          data: { message, previous_status: previous },
        },
      ]);
      return true;
    });
  }
}
