import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CHANNEL_LABELS, Channel } from '@/modules/conversations/channels';

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

export interface AggregateFilter {
  from: number | null;
  to: number | null;
  channels: Channel[] | null;
  agentId: string | null;
  timeZone: string;
}

/** One row of a GROUPING SETS result: `grp` says which bucket it belongs to. */
export interface SessionStatsRow {
  grp: 'total' | 'channel' | 'day';
  channel: Channel | null;
  day: string | null;
  count: string;
  active: string;
  ended: string;
  ended_timeout: string;
  ended_closed: string;
  ended_call_ended: string;
  mean_duration_seconds: string | null;
  messages: string;
}

export interface EvaluationStatsRow {
  grp: 'total' | 'channel' | 'day';
  channel: Channel | null;
  day: string | null;
  feature: string;
  type: string;
  count: string;
  completed: string;
  failed: string;
  skipped: string;
  mean_score: string | null;
  true_count: string;
  false_count: string;
}

export interface EvaluationValueRow {
  grp: 'total' | 'channel' | 'day';
  channel: Channel | null;
  day: string | null;
  feature: string;
  value: string;
  count: string;
}

export interface CallStatsRow {
  grp: 'total' | 'channel' | 'day';
  channel: Channel | null;
  day: string | null;
  count: string;
  inbound: string;
  outbound: string;
  answered: string;
  total_duration_seconds: string | null;
  mean_duration_seconds: string | null;
  max_duration_seconds: string | null;
}

/** Which GROUPING SETS bucket a row is: bit 1 = channel rolled up, bit 0 = day rolled up. */
const GROUP_LABEL = `CASE GROUPING(channel, day) WHEN 3 THEN 'total' WHEN 1 THEN 'channel' ELSE 'day' END`;

/**
 * Read model of the analytics module: plain SQL over the conversation tables (messages, sessions, conversations,
 * evaluation_records), which other modules write. Every query takes the workspace id first and filters on it.
 * Nothing here writes.
 */
@Injectable()
export class AnalyticsRepository {
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
  exportPage(workspaceId: string, q: ExportPageQuery): Promise<ExportRow[]> {
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

  /** Sessions started in the range: totals, per channel and per local day, in one GROUPING SETS query. */
  sessionStats(workspaceId: string, f: AggregateFilter): Promise<SessionStatsRow[]> {
    const { where, params } = this.filter(workspaceId, f, 's', 'started_at');
    return this.db.query(
      `WITH s AS (
         SELECT s.channel, to_char(s.started_at AT TIME ZONE $${params.length + 1}, 'YYYY-MM-DD') AS day,
                s.status, s.end_reason, s.message_count,
                CASE WHEN s.ended_at IS NOT NULL THEN extract(epoch FROM s.ended_at - s.started_at) END AS duration
           FROM sessions s WHERE ${where})
       SELECT ${GROUP_LABEL} AS grp, channel, day,
              count(*) AS count,
              count(*) FILTER (WHERE status = 'active') AS active,
              count(*) FILTER (WHERE status = 'ended') AS ended,
              count(*) FILTER (WHERE end_reason = 'timeout') AS ended_timeout,
              count(*) FILTER (WHERE end_reason = 'closed') AS ended_closed,
              count(*) FILTER (WHERE end_reason = 'call_ended') AS ended_call_ended,
              avg(duration) AS mean_duration_seconds,
              coalesce(sum(message_count), 0) AS messages
         FROM s
        GROUP BY GROUPING SETS ((), (channel), (day))
        ORDER BY grp, channel, day`,
      [...params, f.timeZone],
    );
  }

  /** Evaluation records created in the range, per feature: totals, per channel and per local day. */
  evaluationStats(workspaceId: string, f: AggregateFilter): Promise<EvaluationStatsRow[]> {
    const { where, params } = this.filter(workspaceId, f, 'e', 'created_at');
    return this.db.query(
      `WITH e AS (
         SELECT e.channel, to_char(e.created_at AT TIME ZONE $${params.length + 1}, 'YYYY-MM-DD') AS day,
                e.feature, e.type, e.status, e.score, e.value
           FROM evaluation_records e WHERE ${where})
       SELECT ${GROUP_LABEL} AS grp, channel, day, feature, type,
              count(*) AS count,
              count(*) FILTER (WHERE status = 'completed') AS completed,
              count(*) FILTER (WHERE status = 'failed') AS failed,
              count(*) FILTER (WHERE status = 'skipped') AS skipped,
              avg(score) FILTER (WHERE status = 'completed') AS mean_score,
              count(*) FILTER (WHERE status = 'completed' AND type = 'boolean' AND value = 'true'::jsonb) AS true_count,
              count(*) FILTER (WHERE status = 'completed' AND type = 'boolean' AND value = 'false'::jsonb) AS false_count
         FROM e
        GROUP BY GROUPING SETS ((feature, type), (channel, feature, type), (day, feature, type))
        ORDER BY grp, channel, day, feature`,
      [...params, f.timeZone],
    );
  }

  /** Counts of each completed boolean value or label per feature, in the same buckets. */
  evaluationValues(workspaceId: string, f: AggregateFilter): Promise<EvaluationValueRow[]> {
    const { where, params } = this.filter(workspaceId, f, 'e', 'created_at');
    return this.db.query(
      `WITH e AS (
         SELECT e.channel, to_char(e.created_at AT TIME ZONE $${params.length + 1}, 'YYYY-MM-DD') AS day,
                e.feature,
                CASE WHEN e.type = 'label' THEN coalesce(e.label, e.value #>> '{}') ELSE e.value #>> '{}' END AS value
           FROM evaluation_records e
          WHERE ${where} AND e.status = 'completed' AND e.type IN ('boolean', 'label'))
       SELECT ${GROUP_LABEL} AS grp, channel, day, feature, value, count(*) AS count
         FROM e WHERE value IS NOT NULL
        GROUP BY GROUPING SETS ((feature, value), (channel, feature, value), (day, feature, value))
        ORDER BY grp, channel, day, feature, value`,
      [...params, f.timeZone],
    );
  }

  /**
   * Calls (phone and whatsapp_call conversations) started in the range. With a call record (every call placed or
   * received through the calls API): its direction, answered = it reached in-progress, duration = its `duration`.
   * A voice conversation without one (opened through the conversations API) keeps the older reading: the first
   * message's direction, answered when the agent side said something, duration from open to close.
   */
  callStats(workspaceId: string, f: AggregateFilter): Promise<CallStatsRow[]> {
    const voice: Channel[] = ['phone', 'whatsapp_call'];
    const channels = f.channels ? f.channels.filter((c) => voice.includes(c)) : voice;
    const { where, params } = this.filter(workspaceId, { ...f, channels }, 'c', 'created_at');
    return this.db.query(
      `WITH c AS (
         SELECT c.channel, to_char(c.created_at AT TIME ZONE $${params.length + 1}, 'YYYY-MM-DD') AS day,
                CASE WHEN k.id IS NULL THEN first.direction ELSE lower(k.direction) END AS direction,
                CASE WHEN k.id IS NULL
                     THEN EXISTS (SELECT 1 FROM messages a WHERE a.conversation_id = c.id AND a.sender = 'agent')
                     ELSE k.answered_at IS NOT NULL END AS answered,
                CASE WHEN k.id IS NOT NULL
                     THEN CASE WHEN k.answered_at IS NOT NULL AND k.ended_at IS NOT NULL
                               THEN floor(extract(epoch FROM k.ended_at - k.answered_at)) ELSE 0 END
                     WHEN c.closed_at IS NOT NULL THEN extract(epoch FROM c.closed_at - c.created_at) END AS duration
           FROM conversations c
           LEFT JOIN calls k ON k.id = c.id AND k.workspace_id = c.workspace_id
           LEFT JOIN LATERAL (SELECT m.direction FROM messages m WHERE m.conversation_id = c.id
                               ORDER BY m.created_at, m.id LIMIT 1) first ON true
          WHERE ${where})
       SELECT ${GROUP_LABEL} AS grp, channel, day,
              count(*) AS count,
              count(*) FILTER (WHERE direction = 'inbound') AS inbound,
              count(*) FILTER (WHERE direction = 'outbound') AS outbound,
              count(*) FILTER (WHERE answered) AS answered,
              sum(duration) AS total_duration_seconds,
              avg(duration) AS mean_duration_seconds,
              max(duration) AS max_duration_seconds
         FROM c
        GROUP BY GROUPING SETS ((), (channel), (day))
        ORDER BY grp, channel, day`,
      [...params, f.timeZone],
    );
  }

  private filter(
    workspaceId: string,
    f: AggregateFilter,
    alias: string,
    column: string,
  ): { where: string; params: unknown[] } {
    const params: unknown[] = [workspaceId];
    const where = [`${alias}.workspace_id = $1`];
    if (f.from !== null) {
      params.push(new Date(f.from));
      where.push(`${alias}.${column} >= $${params.length}`);
    }
    if (f.to !== null) {
      params.push(new Date(f.to));
      where.push(`${alias}.${column} < $${params.length}`);
    }
    if (f.channels) {
      params.push(f.channels);
      where.push(`${alias}.channel = ANY($${params.length}::varchar[])`);
    }
    if (f.agentId) {
      params.push(f.agentId);
      where.push(`${alias}.agent_id = $${params.length}::uuid`);
    }
    return { where: where.join(' AND '), params };
  }
}
