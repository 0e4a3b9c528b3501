import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Webhook } from './webhook.entity';

@Injectable()
export class WebhooksRepository extends WorkspaceScopedRepository<Webhook> {
  constructor(@InjectRepository(Webhook) repo: Repository<Webhook>) {
    super(repo);
  }

  /** Active workspace webhooks subscribed to an event type. */
  subscribed(workspaceId: WorkspaceId, type: string): Promise<Webhook[]> {
    return this.query(workspaceId, 'w')
      .andWhere('w.is_active = true')
      .andWhere(':type = ANY(w.events)', { type })
      .orderBy('w.created_at', 'ASC')
      .getMany();
  }

  async disable(workspaceId: WorkspaceId, id: string): Promise<void> {
    await this.updateWhere(workspaceId, { id }, { isActive: false, updatedAt: new Date() } as never);
  }
}
