import { Injectable } from '@nestjs/common';
import { CHANNEL_LABELS, Channel } from '@/modules/conversations/channels';
import { UsageResponse } from '@/modules/usage/dto/usage.response';
import { countersOf } from '@/modules/usage/usage-counters';
import { PricesService } from '@/modules/workspaces/prices.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import {
  AggregateFilter,
  AggregatesRepository,
  CallStatsRow,
  EvaluationStatsRow,
  EvaluationValueRow,
  SessionStatsRow,
  UsageStatsRow,
} from './aggregates.repository';
import { AnalyticsQuery, parseChannelList } from './dto/analytics.query';
import {
  AnalyticsRangeDto,
  CallAnalyticsDto,
  CallStatsDto,
  EvaluationAnalyticsDto,
  EvaluationStatsDto,
  FeatureStatsDto,
  SessionAnalyticsDto,
  SessionStatsDto,
  UsageAnalyticsDto,
  UsageStatsDto,
} from './dto/analytics-response.dto';
import { parseRange } from './time-range';

const int = (v: string | null | undefined): number => (v == null ? 0 : Number(v));
const num = (v: string | null | undefined, digits = 2): number | null =>
  v == null ? null : Number(Number(v).toFixed(digits));

interface Buckets<T> {
  totals: T;
  by_channel: (T & { channel: Channel; channel_label: string })[];
  by_day: (T & { date: string })[];
}

/** Splits GROUPING SETS rows into the totals, per-channel and per-day buckets (other groupings are left out). */
function bucket<R extends { grp: string; channel: Channel | null; day: string | null }, T>(
  rows: R[],
  map: (rows: R[]) => T,
  empty: T,
): Buckets<T> {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    if (!['total', 'channel', 'day'].includes(row.grp)) continue;
    const key = row.grp === 'total' ? 'total' : row.grp === 'channel' ? `c:${row.channel}` : `d:${row.day}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const out: Buckets<T> = { totals: empty, by_channel: [], by_day: [] };
  for (const [key, list] of groups) {
    const value = map(list);
    if (key === 'total') out.totals = value;
    else if (key.startsWith('c:')) {
      const channel = list[0].channel as Channel;
      out.by_channel.push({ channel, channel_label: CHANNEL_LABELS[channel], ...value });
    } else out.by_day.push({ date: list[0].day as string, ...value });
  }
  out.by_channel.sort((a, b) => a.channel.localeCompare(b.channel));
  out.by_day.sort((a, b) => a.date.localeCompare(b.date));
  return out;
}

/** Aggregates over sessions, evaluation records and calls, computed by the database. */
@Injectable()
export class AggregatesService {
  constructor(
    private readonly repo: AggregatesRepository,
    private readonly prices: PricesService,
  ) {}

  async sessions(workspaceId: WorkspaceId, query: AnalyticsQuery): Promise<SessionAnalyticsDto> {
    const { filter, range } = this.filter(query);
    const rows = await this.repo.sessionStats(workspaceId, filter);
    const stats = ([r]: SessionStatsRow[]): SessionStatsDto => ({
      count: int(r.count),
      active: int(r.active),
      ended: int(r.ended),
      ended_by_reason: {
        timeout: int(r.ended_timeout),
        closed: int(r.ended_closed),
        call_ended: int(r.ended_call_ended),
      },
      mean_duration_seconds: num(r.mean_duration_seconds, 3),
      messages: int(r.messages),
      messages_per_session: int(r.count) ? num(String(int(r.messages) / int(r.count))) : null,
    });
    return { range, ...bucket(rows, stats, stats([{} as SessionStatsRow])) };
  }

  async evaluations(workspaceId: WorkspaceId, query: AnalyticsQuery): Promise<EvaluationAnalyticsDto> {
    const { filter, range } = this.filter(query);
    const [rows, values] = await Promise.all([
      this.repo.evaluationStats(workspaceId, filter),
      this.repo.evaluationValues(workspaceId, filter),
    ]);
    const valueKey = (v: { grp: string; channel: string | null; day: string | null; feature: string }) =>
      `${v.grp}|${v.channel ?? ''}|${v.day ?? ''}|${v.feature}`;
    const counts = new Map<string, Record<string, number>>();
    for (const v of values as EvaluationValueRow[]) {
      const key = valueKey(v);
      counts.set(key, { ...(counts.get(key) ?? {}), [v.value]: int(v.count) });
    }
    const stats = (list: EvaluationStatsRow[]): EvaluationStatsDto => {
      const features = list.map((r): FeatureStatsDto => ({
        feature: r.feature,
        type: r.type,
        count: int(r.count),
        completed: int(r.completed),
        failed: int(r.failed),
        skipped: int(r.skipped),
        values: counts.get(valueKey(r)) ?? {},
        mean_score: num(r.mean_score),
        success_rate:
          r.type === 'boolean' && int(r.true_count) + int(r.false_count) > 0
            ? num(String(int(r.true_count) / (int(r.true_count) + int(r.false_count))), 4)
            : null,
      }));
      features.sort((a, b) => a.feature.localeCompare(b.feature));
      return { records: features.reduce((n, f) => n + f.count, 0), features };
    };
    return { range, ...bucket(rows, stats, { records: 0, features: [] }) };
  }

  async calls(workspaceId: WorkspaceId, query: AnalyticsQuery): Promise<CallAnalyticsDto> {
    const { filter, range } = this.filter(query);
    const [rows, prices] = await Promise.all([
      this.repo.callStats(workspaceId, filter),
      this.prices.forWorkspace(workspaceId),
    ]);
    const stats = ([r]: CallStatsRow[]): CallStatsDto => ({
      count: int(r.count),
      inbound: int(r.inbound),
      outbound: int(r.outbound),
      answered: int(r.answered),
      answered_by: {
        human: int(r.answered_by_human),
        machine: int(r.answered_by_machine),
        fax: int(r.answered_by_fax),
        unknown: int(r.answered_by_unknown),
      },
      total_duration_seconds: num(r.total_duration_seconds, 3),
      mean_duration_seconds: num(r.mean_duration_seconds, 3),
      max_duration_seconds: num(r.max_duration_seconds, 3),
      usage: UsageResponse.of(countersOf(r), prices),
    });
    return { range, ...bucket(rows, stats, stats([{} as CallStatsRow])) };
  }

  /** Usage sums and their cost under the workspace's current price table (null without one). */
  async usage(workspaceId: WorkspaceId, query: AnalyticsQuery): Promise<UsageAnalyticsDto> {
    const { filter, range } = this.filter(query);
    const [rows, prices] = await Promise.all([
      this.repo.usageStats(workspaceId, filter),
      this.prices.forWorkspace(workspaceId),
    ]);
    const stats = ([r]: UsageStatsRow[]): UsageStatsDto => ({
      conversations: int(r.conversations),
      ...UsageResponse.of(countersOf(r), prices),
    });
    const by_agent = rows
      .filter((r) => r.grp === 'agent')
      .map((r) => ({ agent_uuid: r.agent_id, agent_name: r.agent_name, ...stats([r]) }));
    return { range, ...bucket(rows, stats, stats([{} as UsageStatsRow])), by_agent };
  }

  private filter(query: AnalyticsQuery): { filter: AggregateFilter; range: AnalyticsRangeDto } {
    const timeZone = query.timezone ?? 'UTC';
    const { from, to } = parseRange(query.from, query.to, timeZone);
    const channels = query.channel === undefined ? null : parseChannelList(query.channel);
    const agentId = query.agent_uuid?.toLowerCase() ?? null;
    return {
      filter: { from, to, channels, agentId, timeZone },
      range: {
        from: from === null ? null : new Date(from).toISOString(),
        to: to === null ? null : new Date(to).toISOString(),
        channels,
        agent_uuid: agentId,
        timezone: timeZone,
      },
    };
  }
}
