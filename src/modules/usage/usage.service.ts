import { Injectable } from '@nestjs/common';
import { PricesService } from '@/modules/workspaces/prices.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { UsageResponse } from './dto/usage.response';
import { UsageRepository } from './usage.repository';

/** A conversation's (or call's) usage as answered: the counters, the call's legs, the cost under its prices. */
@Injectable()
export class UsageService {
  constructor(
    private readonly repo: UsageRepository,
    private readonly prices: PricesService,
  ) {}

  async ofConversation(workspaceId: WorkspaceId, conversationId: string): Promise<UsageResponse> {
    const [counters, prices] = await Promise.all([
      this.repo.read(workspaceId, conversationId),
      this.prices.forWorkspace(workspaceId),
    ]);
    return UsageResponse.of(counters, prices);
  }
}
