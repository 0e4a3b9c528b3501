import { Sweep } from '@/common/persistence/sweep';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { agentConfigVersionSql } from '@/common/persistence/agent-config-version';
import { entityOf } from '@/common/persistence/rows';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { Message } from '@/modules/conversations/message.entity';
import { recentMessagesJsonSql, recentMessagesOf } from '@/modules/conversations/public';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Call } from './call.entity';

/** A call with what its answer embeds (agent name, contact, first session and its summary), as selected. */
export interface CallViewRow {
  id: string;
  agent_id: string | null;
  agent_name: string | null;
  contact_id: string | null;
  c_name: string | null;
  c_surname: string | null;
  c_phone: string | null;
  c_email: string | null;
  session_id: string | null;
  analysis: string | null;
  phone_number_id: string | null;
  direction: string;
  channel: string;
  status: string;
  end_reason: string | null;
  error: { code: string; message: string } | null;
  handled_by: string;
  from_number: string;
  to_number: string;
  provider: string;
  provider_call_id: string | null;
  is_simulation: boolean;
  muted: boolean;
  forwarded_to: Record<string, unknown> | null;
  variables: Record<string, string>;
  metadata: Record<string, unknown>;
  campaign_id: string | null;
  task_id: string | null;
  listing_id: string | null;
  recording: Record<string, unknown> | null;
  answered_by: string | null;
  voicemail: Record<string, unknown> | null;
  machine_detection: Record<string, unknown> | null;
  answered_at: Date | null;
  ended_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const VIEW_OF = (source: string) => `
  SELECT k.id, k.agent_id, a.name AS agent_name, k.contact_id, ct.name AS c_name, ct.surname AS c_surname,
         ct.phone_number AS c_phone, ct.email AS c_email, s.id AS session_id, s.summary AS analysis,
         k.phone_number_id, k.direction, k.channel, k.status, k.end_reason, k.error, k.handled_by, k.from_number,
         k.to_number, k.provider, k.provider_call_id, k.is_simulation, k.muted, k.forwarded_to, k.variables,
         k.metadata, k.campaign_id, k.task_id, k.listing_id, k.recording, k.answered_by, k.voicemail,
         k.machine_detection, k.answered_at, k.ended_at, k.created_at, k.updated_at
    FROM ${source} k
    LEFT JOIN agents a ON a.id = k.agent_id
    LEFT JOIN contacts ct ON ct.id = k.contact_id AND ct.workspace_id = k.workspace_id
    LEFT JOIN LATERAL (SELECT id, summary FROM sessions
                        WHERE workspace_id = k.workspace_id AND conversation_id = k.id
                        ORDER BY started_at LIMIT 1) s ON true`;
const VIEW = VIEW_OF('calls');
/** Someone spoke: the activity recorded and the call read as its answer embeds it, in one statement. */
/**
 * The activity is committed without waiting for its WAL flush (`synchronous_commit` off for this statement's own
 * transaction): a write that waits for the disk costs 2 to 4 ms on the development machine against 0.3 ms, and a
 * PostgreSQL crash that loses the last fraction of a second of activity at most lets a silence timer fire a little
 * early on a call that the crash has disturbed anyway. Only for statements that are their own transaction.
 */
const NO_FLUSH_WAIT = `set_config('synchronous_commit', 'off', true) IS NOT NULL`;
const TOUCH_VIEW = `WITH t AS (UPDATE calls SET last_activity_at = $3
   WHERE workspace_id = $1 AND id = $2 AND ${NO_FLUSH_WAIT} RETURNING *)
${VIEW_OF('t')}`;

export interface CallListFilter {
  statuses?: string[];
  direction?: string;
  channel?: string;
  agentId?: string;
  contactId?: string;
  campaignId?: string;
  taskId?: string;
  phoneNumberId?: string;
  phone?: string;
  isSimulation?: boolean;
  from?: Date;
  to?: Date;
}

/** A live call as the concurrency reconciler sees it. */
export interface LiveSlotRow {
  workspace_id: WorkspaceId;
  id: string;
  phone_number_id: string | null;
}

@Injectable()
export class CallsRepository extends WorkspaceScopedRepository<Call> {
  constructor(@InjectRepository(Call) repo: Repository<Call>) {
    super(repo);
  }

  /** The call row (one plain statement: it is read on every turn and action). */
  override async findById(
    workspaceId: WorkspaceId,
    id: string,
    manager?: EntityManager,
  ): Promise<Call | null> {
    const rows = await this.sql<Record<string, unknown>[]>(
      `SELECT * FROM calls WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
      manager,
    );
    return rows.length ? entityOf(Call, rows[0]) : null;
  }

  /**
   * The call row with the workspace's agent configuration version beside it, one statement: a turn or an action
   * then answers from the agent context kept for the call while that version holds. With `history`, the
   * conversation's last messages too (a turn's prompt), so a turn reads no more before the model.
   */
  async findWithAgentVersion(
    workspaceId: WorkspaceId,
    id: string,
    options: { history?: number; summaries?: number } = {},
  ): Promise<{
    call: Call;
    agentConfigVersion: string | null;
    history?: Message[];
    summaries?: string[];
  } | null> {
    const recent = options.history ? `, ${recentMessagesJsonSql('c', options.history)} AS recent` : '';
    // The contact's last summarised sessions, newest first (the partial index ix_sessions_contact_summaries).
    const summaries = options.summaries
      ? `, (SELECT coalesce(json_agg(s.summary ORDER BY s.ended_at DESC), '[]'::json) FROM (
             SELECT summary, ended_at FROM sessions
              WHERE workspace_id = c.workspace_id AND contact_id = c.contact_id AND summary IS NOT NULL
              ORDER BY ended_at DESC LIMIT ${Math.trunc(options.summaries)}) s) AS summaries`
      : '';
    const rows = await this.sql<Record<string, unknown>[]>(
      `SELECT c.*, ${agentConfigVersionSql('c')} AS agent_config_version${recent}${summaries}
         FROM calls c WHERE c.workspace_id = $1 AND c.id = $2`,
      [workspaceId, id],
    );
    if (!rows.length) return null;
    const { agent_config_version: version, recent: history, summaries: summarised, ...row } = rows[0];
    return {
      call: entityOf(Call, row),
      agentConfigVersion: (version as string | null) ?? null,
      ...(history ? { history: recentMessagesOf(history as Record<string, unknown>[]) } : {}),
      ...(summarised ? { summaries: summarised as string[] } : {}),
    };
  }

  /** The call row, locked for the rest of the transaction: concurrent moves of one call have one winner. */
  lock(workspaceId: WorkspaceId, id: string, manager: EntityManager): Promise<Call | null> {
    return this.query(workspaceId, 'k', manager)
      .andWhere('k.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  async view(workspaceId: WorkspaceId, id: string, manager?: EntityManager): Promise<CallViewRow | null> {
    const rows = (await this.sql(
      `${VIEW} WHERE k.workspace_id = $1 AND k.id = $2`,
      [workspaceId, id],
      manager,
    )) as CallViewRow[];
    return rows[0] ?? null;
  }

  async list(
    workspaceId: WorkspaceId,
    f: CallListFilter,
    skip: number,
    take: number,
  ): Promise<{ rows: CallViewRow[]; total: number }> {
    const params: unknown[] = [workspaceId];
    const where = ['k.workspace_id = $1'];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (f.statuses?.length) add('k.status = ANY(?::varchar[])', f.statuses);
    if (f.direction) add('k.direction = ?', f.direction);
    if (f.channel) add('k.channel = ?', f.channel);
    if (f.agentId) add('k.agent_id = ?', f.agentId);
    if (f.contactId) add('k.contact_id = ?', f.contactId);
    if (f.campaignId) add('k.campaign_id = ?', f.campaignId);
    if (f.taskId) add('k.task_id = ?', f.taskId);
    if (f.phoneNumberId) add('k.phone_number_id = ?', f.phoneNumberId);
    if (f.phone)
      add(
        `(CASE WHEN k.direction = 'Outbound' THEN k.to_number ELSE k.from_number END) LIKE '%' || ? || '%'`,
        f.phone.replace(/[%_\\]/g, '\\$&'),
      );
    if (f.isSimulation !== undefined) add('k.is_simulation = ?', f.isSimulation);
    if (f.from) add('k.created_at >= ?', f.from);
    if (f.to) add('k.created_at < ?', f.to);
    const cond = where.join(' AND ');
    const [rows, count] = await Promise.all([
      this.sql(
        `${VIEW} WHERE ${cond} ORDER BY k.created_at DESC, k.id DESC OFFSET ${skip} LIMIT ${take}`,
        params,
      ) as Promise<CallViewRow[]>,
      this.sql(`SELECT count(*)::int AS n FROM calls k WHERE ${cond}`, params) as Promise<{ n: number }[]>,
    ]);
    return { rows, total: count[0].n };
  }

  /** Appends a provider event to the call's log (ended calls keep late events only here). */
  async logProviderEvent(
    workspaceId: WorkspaceId,
    id: string,
    entry: Record<string, unknown>,
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `UPDATE calls SET provider_log = provider_log || $3::jsonb, updated_at = now()
        WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id, JSON.stringify([entry])],
    );
  }

  /** Moves ownership to `ownerId` when the current owner is `expected` (a dead replica's calls are taken over). */
  async claimOwner(
    workspaceId: WorkspaceId,
    id: string,
    expected: string | null,
    ownerId: string,
  ): Promise<boolean> {
    const [rows] = (await this.sql(
      `UPDATE calls SET owner_id = $4 WHERE workspace_id = $1 AND id = $2 AND owner_id IS NOT DISTINCT FROM $3
       RETURNING id`,
      [workspaceId, id, expected, ownerId],
    )) as [unknown[], number];
    return rows.length === 1;
  }

  async setProviderCallId(workspaceId: WorkspaceId, id: string, providerCallId: string): Promise<void> {
    await this.sql(`UPDATE calls SET provider_call_id = $3 WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
      providerCallId,
    ]);
  }

  /**
   * Records the last moment someone spoke on the call and answers the call's view (null: no such call); its own
   * transaction, committed without waiting for the WAL flush.
   */
  async touchAndView(workspaceId: WorkspaceId, id: string, at: Date): Promise<CallViewRow | null> {
    const rows = (await this.sql(TOUCH_VIEW, [workspaceId, id, at])) as CallViewRow[];
    return rows[0] ?? null;
  }

  /** Records the last moment someone spoke on the call (its own transaction; no wait for the WAL flush). */
  async touch(workspaceId: WorkspaceId, id: string, at: Date): Promise<void> {
    await this.sql(
      `UPDATE calls SET last_activity_at = $3 WHERE workspace_id = $1 AND id = $2 AND ${NO_FLUSH_WAIT}`,
      [workspaceId, id, at],
    );
  }

  /**
   * A provider callback's lookup: the workspace of the call named in the signed hook path. The only other read of
   * this table across workspaces; it answers the id and workspace alone.
   */
  @Sweep('reconciliation')
  async workspaceOfCall(id: string): Promise<WorkspaceId | null> {
    const rows = (await this.sql(`SELECT workspace_id FROM calls WHERE id = $1`, [id])) as {
      workspace_id: WorkspaceId;
    }[];
    return rows[0]?.workspace_id ?? null;
  }

  /**
   * Cross-tenant sweep for the concurrency reconciler: every live call of every workspace. Named for what it is,
   * the one read of this table that is not scoped to a workspace.
   */
  @Sweep('reconciliation')
  liveCallsOfAllWorkspaces(): Promise<LiveSlotRow[]> {
    return this.sql(
      `SELECT workspace_id, id, phone_number_id FROM calls WHERE status IN ('queued', 'ringing', 'in-progress')`,
    );
  }
}
