import { Injectable } from '@nestjs/common';
import type { Transaction } from '@/common/persistence/unit-of-work';
import { OutboxService } from '@/modules/events/outbox.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { Campaign, CampaignStatus } from './outbound.entities';
import type { CampaignResponse } from './setup/dto/campaign.dto';
import { taskView } from './setup/views';
import type { MovedTask } from './task-row';

const CHUNK = 1000;

/** `campaign_status` and `task_status` events, written in the transaction of the move. */
@Injectable()
export class OutboundEvents {
  constructor(private readonly outbox: OutboxService) {}

  async tasks(tx: Transaction, workspaceId: WorkspaceId, moved: MovedTask[]): Promise<void> {
    for (let i = 0; i < moved.length; i += CHUNK)
      await this.outbox.record(
        tx,
        workspaceId,
        moved.slice(i, i + CHUNK).map((m) => ({
          type: 'task_status' as const,
          agentId: m.task.agent_id,
          data: { task: taskView(m.task), previous_status: m.previous },
        })),
      );
  }

  /** The campaign as the move answers it (`view`, read in the move's transaction). */
  async campaign(
    tx: Transaction,
    c: Campaign,
    view: CampaignResponse,
    previous: CampaignStatus | null,
  ): Promise<void> {
    await this.outbox.record(tx, c.workspaceId, [
      {
        type: 'campaign_status',
        agentId: c.agentId,
        data: { campaign: view, previous_status: previous },
      },
    ]);
  }
}
