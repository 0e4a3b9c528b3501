import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ActionLogInput, ActionLogsRepository } from './action-logs.repository';

/** Where task attempts, flow executions and intent calls leave their trace for `GET /logs/actions`. */
@Injectable()
export class ActionLog {
  constructor(private readonly rows: ActionLogsRepository) {}

  record(workspaceId: WorkspaceId, entry: ActionLogInput, tx?: EntityManager): Promise<string> {
    return this.rows.append(workspaceId, entry, tx);
  }
}
