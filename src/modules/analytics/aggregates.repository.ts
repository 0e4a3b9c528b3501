import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Channel, isVoiceChannel, VOICE_CHANNELS } from '@/modules/conversations/channels';
import type { UsageCounters } from '@/modules/usage/usage-counters';
import type { WorkspaceId } from '@/common/auth/workspace-id';

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

/** Usage counters summed over a bucket (bigint sums arrive as strings). */
export type UsageSums = Record<keyof UsageCounters, string | null>;

export interface CallStatsRow extends UsageSums {
  grp: 'total' | 'channel' | 'day';
  channel: Channel | null;
  day: string | null;
  count: string;
  inbound: string;
  outbound: string;
  answered: string;
  answered_by_human: string;
  answered_by_machine: string;
  answered_by_fax: string;
  answered_by_unknown: string;
  total_duration_seconds: string | null;
  mean_duration_seconds: string | null;
  max_duration_seconds: string | null;
}

export interface UsageStatsRow extends UsageSums {
  grp: 'total' | 'channel' | 'day' | 'agent';
  channel: Channel | null;
  day: string | null;
  agent_id: string | null;
  agent_name: string | null;
  conversations: string;
}

/** Which GROUPING SETS bucket a row is: bit 1 = channel rolled up, bit 0 = day rolled up. */
const GROUP_LABEL = `CASE GROUPING(channel, day) WHEN 3 THEN 'total' WHEN 1 THEN 'channel' ELSE 'day' END`;

/**
 * A conversation's usage columns, for a CTE over `conversations c` joined to `conversation_usage u` and `calls k`:
 * the counters, and the call's own leg as its `duration` (answered to ended, whole seconds).
 */
const USAGE_COLUMNS = `coalesce(u.prompt_tokens, 0) AS prompt_tokens, coalesce(u.completion_tokens, 0) AS completion_tokens,
                coalesce(u.stt_ms, 0) AS stt_ms, coalesce(u.tts_characters, 0) AS tts_characters,
                coalesce(u.tool_calls, 0) AS tool_calls, coalesce(u.forwarded_seconds, 0) AS forwarded_seconds,
                CASE WHEN k.answered_at IS NOT NULL AND k.ended_at IS NOT NULL
                     THEN floor(extract(epoch FROM k.ended_at - k.answered_at)) ELSE 0 END AS call_seconds`;
/** Their sums over a bucket, named as UsageCounters. */
const USAGE_SUMS = `sum(prompt_tokens) AS "promptTokens", sum(completion_tokens) AS "completionTokens",
              sum(stt_ms) AS "sttMs", sum(tts_characters) AS "ttsCharacters", sum(tool_calls) AS "toolCalls",
              sum(call_seconds) AS "callSeconds", sum(forwarded_seconds) AS "forwardedSeconds"`;
const USAGE_JOIN = 'LEFT JOIN conversation_usage u ON u.id = c.id AND u.workspace_id = c.workspace_id';

/**
 * The aggregates' reads: GROUPING SETS queries over sessions, evaluation_records, conversations and calls (which
 * other modules write), the workspace id first in every query. Nothing here writes.
 */
@Injectable()
export class AggregatesRepository {
  constructor(private readonly db: DataSource) {}

  /** Sessions started in the range: totals, per channel and per local day, in one GROUPING SETS query. */
  sessionStats(workspaceId: WorkspaceId, f: AggregateFilter): Promise<SessionStatsRow[]> {
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
  evaluationStats(workspaceId: WorkspaceId, f: AggregateFilter): Promise<EvaluationStatsRow[]> {
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
  evaluationValues(workspaceId: WorkspaceId, f: AggregateFilter): Promise<EvaluationValueRow[]> {
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
   * Calls (the voice channels' conversations: phone, whatsapp_call, web) started in the range. With a call record
   * (every call placed or received through the calls API, every web call): its direction, answered = it reached
   * in-progress, duration = its `duration`.
   * A voice conversation without one (opened through the conversations API) keeps the older reading: the first
   * message's direction, answered when the agent side said something, duration from open to close.
   */
  callStats(workspaceId: WorkspaceId, f: AggregateFilter): Promise<CallStatsRow[]> {
    const channels = f.channels ? f.channels.filter(isVoiceChannel) : [...VOICE_CHANNELS];
    const { where, params } = this.filter(workspaceId, { ...f, channels }, 'c', 'created_at');
    return this.db.query(
      `WITH c AS (
         SELECT c.channel, to_char(c.created_at AT TIME ZONE $${params.length + 1}, 'YYYY-MM-DD') AS day,
                CASE WHEN k.id IS NULL THEN first.direction ELSE lower(k.direction) END AS direction,
                k.answered_by,
                CASE WHEN k.id IS NULL
                     THEN EXISTS (SELECT 1 FROM messages a WHERE a.conversation_id = c.id AND a.sender = 'agent')
                     ELSE k.answered_at IS NOT NULL END AS answered,
                CASE WHEN k.id IS NOT NULL
                     THEN CASE WHEN k.answered_at IS NOT NULL AND k.ended_at IS NOT NULL
                               THEN floor(extract(epoch FROM k.ended_at - k.answered_at)) ELSE 0 END
                     WHEN c.closed_at IS NOT NULL THEN extract(epoch FROM c.closed_at - c.created_at) END AS duration,
                ${USAGE_COLUMNS}
           FROM conversations c
           LEFT JOIN calls k ON k.id = c.id AND k.workspace_id = c.workspace_id
           ${USAGE_JOIN}
           LEFT JOIN LATERAL (SELECT m.direction FROM messages m WHERE m.conversation_id = c.id
                               ORDER BY m.created_at, m.id LIMIT 1) first ON true
          WHERE ${where})
       SELECT ${GROUP_LABEL} AS grp, channel, day,
              count(*) AS count,
              count(*) FILTER (WHERE direction = 'inbound') AS inbound,
              count(*) FILTER (WHERE direction = 'outbound') AS outbound,
              count(*) FILTER (WHERE answered) AS answered,
              count(*) FILTER (WHERE answered_by = 'human') AS answered_by_human,
              count(*) FILTER (WHERE answered_by = 'machine') AS answered_by_machine,
              count(*) FILTER (WHERE answered_by = 'fax') AS answered_by_fax,
              count(*) FILTER (WHERE answered_by = 'unknown') AS answered_by_unknown,
              sum(duration) AS total_duration_seconds,
              avg(duration) AS mean_duration_seconds,
              max(duration) AS max_duration_seconds,
              ${USAGE_SUMS}
         FROM c
        GROUP BY GROUPING SETS ((), (channel), (day))
        ORDER BY grp, channel, day`,
      [...params, f.timeZone],
    );
  }

  /**
   * Usage of the conversations started in the range (every channel) that used anything or are calls: sums in
   * total, per channel, per local day and per agent (with its name), in one GROUPING SETS query. A conversation's
   * usage counts on the day it started, as a call counts in /analytics/calls.
   */
  usageStats(workspaceId: WorkspaceId, f: AggregateFilter): Promise<UsageStatsRow[]> {
    const { where, params } = this.filter(workspaceId, f, 'c', 'created_at');
    return this.db.query(
      `WITH c AS (
         SELECT c.channel, to_char(c.created_at AT TIME ZONE $${params.length + 1}, 'YYYY-MM-DD') AS day,
                c.agent_id, ${USAGE_COLUMNS}
           FROM conversations c
           LEFT JOIN calls k ON k.id = c.id AND k.workspace_id = c.workspace_id
           ${USAGE_JOIN}
          WHERE ${where} AND (u.id IS NOT NULL OR k.id IS NOT NULL)),
       g AS (
         SELECT CASE GROUPING(channel, day, agent_id) WHEN 7 THEN 'total' WHEN 3 THEN 'channel'
                     WHEN 5 THEN 'day' ELSE 'agent' END AS grp,
                channel, day, agent_id, count(*) AS conversations, ${USAGE_SUMS}
           FROM c
          GROUP BY GROUPING SETS ((), (channel), (day), (agent_id)))
       SELECT g.*, a.name AS agent_name
         FROM g LEFT JOIN agents a ON a.workspace_id = $1 AND a.id = g.agent_id AND g.grp = 'agent'
        ORDER BY g.grp, g.channel, g.day, a.name, g.agent_id`,
      [...params, f.timeZone],
    );
  }

  private filter(
    workspaceId: WorkspaceId,
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
