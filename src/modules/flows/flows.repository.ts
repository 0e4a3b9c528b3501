import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Sweep } from '@/common/persistence/sweep';
import type { Transaction } from '@/common/persistence/unit-of-work';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Flow, FlowStatus, FlowVersion } from './flow.entity';

export interface LiveFlow {
  id: string;
  workspace_id: WorkspaceId;
  live_version: number;
  trigger_key: string;
  trigger_config: Record<string, unknown> | null;
}

@Injectable()
export class FlowsRepository extends WorkspaceScopedRepository<Flow> {
  constructor(@InjectRepository(Flow) repo: Repository<Flow>) {
    super(repo);
  }

  list(
    workspaceId: WorkspaceId,
    q: { status?: FlowStatus; search?: string; skip: number; take: number },
  ): Promise<[Flow[], number]> {
    const qb = this.query(workspaceId, 'f');
    if (q.status) qb.andWhere('f.status = :status', { status: q.status });
    if (q.search) qb.andWhere('f.name ILIKE :search', { search: `%${q.search.replace(/[%_\\]/g, '\\$&')}%` });
    return qb
      .orderBy('f.created_at', 'DESC')
      .addOrderBy('f.id', 'DESC')
      .skip(q.skip)
      .take(q.take)
      .getManyAndCount();
  }

  /** The flow under a row lock (every edit and state move goes through it), or null. */
  async lock(tx: Transaction, workspaceId: WorkspaceId, id: string): Promise<Flow | null> {
    const rows = await this.sql<Array<{ id: string }>>(
      `SELECT id FROM flows WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
      [workspaceId, id],
      tx,
    );
    return rows.length ? this.findById(workspaceId, id, tx) : null;
  }

  /** Deployed flows of the workspace whose live trigger is one of `keys`. */
  live(workspaceId: WorkspaceId, keys: string[]): Promise<LiveFlow[]> {
    return this.sql<LiveFlow[]>(
      `SELECT id, workspace_id, live_version, trigger_key, trigger_config FROM flows
        WHERE workspace_id = $1 AND status = 'deployed' AND trigger_key = ANY($2)`,
      [workspaceId, keys],
    );
  }

  /** The webhook trigger's flow, found by its id and secret token alone (the hook carries no tenant). */
  @Sweep('dispatch')
  async byWebhookToken(flowId: string, token: string): Promise<LiveFlow | null> {
    const rows = await this.sql<LiveFlow[]>(
      `SELECT id, workspace_id, live_version, trigger_key, trigger_config FROM flows
        WHERE id = $1 AND webhook_token = $2 AND status = 'deployed' AND trigger_key = 'webhook'`,
      [flowId, token],
    );
    return rows[0] ?? null;
  }

  /** Every deployed cron flow of every workspace: their next tick is (re)scheduled when a worker starts. */
  @Sweep('reconciliation')
  async deployedSchedules(): Promise<LiveFlow[]> {
    return this.sql<LiveFlow[]>(
      `SELECT id, workspace_id, live_version, trigger_key, trigger_config FROM flows
        WHERE status = 'deployed' AND trigger_key = 'schedule'`,
    );
  }
}

@Injectable()
export class FlowVersionsRepository extends WorkspaceScopedRepository<FlowVersion> {
  constructor(@InjectRepository(FlowVersion) repo: Repository<FlowVersion>) {
    super(repo);
  }

  async latestNumber(tx: Transaction, workspaceId: WorkspaceId, flowId: string): Promise<number> {
    const rows = await this.sql<Array<{ n: number | null }>>(
      `SELECT max(version_number) AS n FROM flow_versions WHERE workspace_id = $1 AND flow_id = $2`,
      [workspaceId, flowId],
      tx,
    );
    return rows[0]?.n ?? 0;
  }

  get(workspaceId: WorkspaceId, flowId: string, n: number): Promise<FlowVersion | null> {
    return this.findOne(workspaceId, { flowId, versionNumber: n });
  }
}
