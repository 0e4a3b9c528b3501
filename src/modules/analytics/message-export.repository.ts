import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CHANNEL_LABELS, Channel } from '@/modules/conversations/channels';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** An exported message as the database shapes it: the response's field names, order and formats. */
export interface ExportRow {
  message_uuid: string;
  conversation_uuid: string;
  session_uuid: string | null;
  contact_uuid: string | null;
  agent_uuid: string | null;
  channel: Channel;
  channel_label: string;
  direction: string;
  sender: string;
  message_type: string;
  content: string;
  content_disclosure: 'raw' | 'masked';
  /** ISO 8601 in UTC with milliseconds. */
  created_at: string;
}

const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;
/** channel → display label, evaluated by the database so rows come back ready to send. */
const CHANNEL_LABEL_SQL = `CASE m.channel ${Object.entries(CHANNEL_LABELS)
  .map(([channel, label]) => `WHEN ${quote(channel)} THEN ${quote(label)}`)
  .join(' ')} ELSE m.channel END`;

export interface ExportPageQuery {
  channel: Channel | null;
  agentId: string | null;
  from: number | null;
  /** Exclusive upper bound of created_at (epoch ms). */
  upper: number;
  after: { createdAt: number; id: string } | null;
  limit: number;
  /** Tool-call messages (`message_type: "tool"`) too. */
  includeTools?: boolean;
}

/**
 * The message export's reads: plain SQL over `messages` (written by conversations), the workspace id first in
 * every query. Nothing here writes.
 */
@Injectable()
export class MessageExportRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * The exclusive upper bound of created_at below which every message is already committed: a little before
   * now, and before the start of any open transaction (a row takes created_at = now(), its transaction's start,
   * and may commit later). Transactions open longer than `maxOpenSeconds` are not waited for.
   */
  async settledHorizon(settleSeconds: number, maxOpenSeconds: number): Promise<number> {
    const rows: { horizon: string }[] = await this.db.query(
      `SELECT floor(extract(epoch FROM LEAST(
                clock_timestamp() - make_interval(secs => $1),
                (SELECT min(xact_start) FROM pg_stat_activity
                  WHERE datname = current_database() AND pid <> pg_backend_pid()
                    AND backend_type = 'client backend' AND xact_start IS NOT NULL
                    AND xact_start > clock_timestamp() - make_interval(secs => $2))
              )) * 1000)::bigint - 1 AS horizon`,
      [settleSeconds, maxOpenSeconds],
    );
    return Number(rows[0].horizon);
  }

  /**
   * One keyset page in (created_at, id) order; `limit + 1` rows tell whether more follow. The rows are already in
   * the response's shape (names, labels, ISO timestamps), so a page of 1,000 is not rebuilt object by object.
   */
  exportPage(workspaceId: WorkspaceId, q: ExportPageQuery): Promise<ExportRow[]> {
    const params: unknown[] = [workspaceId, new Date(q.upper)];
    const where = ['m.workspace_id = $1', 'm.created_at < $2'];
    if (q.after) {
      params.push(new Date(q.after.createdAt), q.after.id);
      where.push(`(m.created_at, m.id) > ($${params.length - 1}, $${params.length}::uuid)`);
    }
    if (q.from !== null) {
      params.push(new Date(q.from));
      where.push(`m.created_at >= $${params.length}`);
    }
    if (q.channel) {
      params.push(q.channel);
      where.push(`m.channel = $${params.length}`);
    }
    if (q.agentId) {
      params.push(q.agentId);
      where.push(`m.agent_id = $${params.length}::uuid`);
    }
    if (!q.includeTools) where.push(`m.message_type <> 'tool'`);
    params.push(q.limit + 1);
    return this.db.query(
      `SELECT m.id AS message_uuid, m.conversation_id AS conversation_uuid, m.session_id AS session_uuid,
              m.contact_id AS contact_uuid, m.agent_id AS agent_uuid, m.channel,
              ${CHANNEL_LABEL_SQL} AS channel_label, m.direction, m.sender, m.message_type, m.content,
              'raw' AS content_disclosure,
              to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
         FROM messages m
        WHERE ${where.join(' AND ')}
        ORDER BY m.created_at, m.id
        LIMIT $${params.length}`,
      params,
    );
  }
}
