import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { ActionLogEntry, ActionLogType } from './action-log.entity';

export interface ActionLogInput {
  type: ActionLogType;
  name: string;
  status: string;
  channel?: string | null;
  durationMs?: number | null;
  agentId?: string | null;
  contactId?: string | null;
  subjectId?: string | null;
  request?: unknown;
  response?: unknown;
  error?: string | null;
}

@Injectable()
export class ActionLogsRepository extends WorkspaceScopedRepository<ActionLogEntry> {
  constructor(@InjectRepository(ActionLogEntry) repo: Repository<ActionLogEntry>) {
    super(repo);
  }

  /** Appends one row; inside `tx` when the action's own change is being written. Returns its id. */
  async append(workspaceId: string, e: ActionLogInput, tx?: EntityManager): Promise<string> {
    const id = newId();
    await this.sql(
      `INSERT INTO action_logs
         (id, workspace_id, type, name, status, channel, duration_ms, agent_id, contact_id, subject_id,
          request, response, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        id,
        workspaceId,
        e.type,
        e.name.slice(0, 255),
        e.status,
        e.channel ?? null,
        e.durationMs == null ? null : Math.round(e.durationMs),
        e.agentId ?? null,
        e.contactId ?? null,
        e.subjectId ?? null,
        e.request === undefined ? null : JSON.stringify(e.request),
        e.response === undefined ? null : JSON.stringify(e.response),
        e.error ?? null,
      ],
      tx,
    );
    return id;
  }
}
