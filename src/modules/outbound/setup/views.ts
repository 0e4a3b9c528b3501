import type { Campaign, Pool, Rule } from '../outbound.entities';
import type { TaskRow } from '../task-row';
import type { CampaignResponse } from './dto/campaign.dto';
import type { PoolMemberResponse, PoolResponse } from './dto/pool.dto';
import type { RuleResponse } from './dto/rule.dto';
import type { TaskResponse } from './dto/task.dto';
import type { MemberRow } from './pools.repository';

const iso = (d: Date | string | null | undefined): string | null =>
  d === null || d === undefined ? null : new Date(d).toISOString();

export function poolView(p: Pool, contacts: number): PoolResponse {
  return {
    uuid: p.id,
    name: p.name,
    description: p.description,
    type: p.type,
    max_parallel_items: p.maxParallelItems,
    max_retries: p.maxRetries,
    is_active: p.isActive,
    contacts_count: contacts,
    created_at: iso(p.createdAt)!,
    updated_at: iso(p.updatedAt)!,
  };
}

export function memberView(m: MemberRow): PoolMemberResponse {
  const waiting = m.task_status === 'Retrying' || m.task_status === 'Scheduled';
  return {
    contact_uuid: m.contact_id,
    name: m.name,
    surname: m.surname,
    phone_number: m.phone_number,
    email: m.email,
    status: m.task_status ?? 'Pending',
    priority: m.priority,
    retry_count: Math.max(0, (m.attempts ?? 0) - 1),
    next_retry_at: waiting && (m.attempts ?? 0) > 0 ? iso(m.scheduled_at) : null,
    started_at: iso(m.started_at),
    completed_at: iso(m.completed_at),
    failed_at: iso(m.failed_at),
    notes: m.notes,
    added_at: iso(m.added_at)!,
  };
}

export function ruleView(r: Rule): RuleResponse {
  return {
    uuid: r.id,
    name: r.name,
    type: r.type,
    max_calls_per_day: r.maxCallsPerDay,
    max_total_calls: r.maxTotalCalls,
    retry_interval_minutes: r.retryIntervalMinutes,
    retry_strategy: r.retryStrategy,
    retry_on: r.retryOn,
    days: r.days,
    start_time: r.startTime,
    end_time: r.endTime,
    dnc_check: r.dncCheck,
    created_at: iso(r.createdAt)!,
    updated_at: iso(r.updatedAt)!,
  };
}

/** A campaign's answer as its row and pools make it; `CampaignWaits` adds the window and when it next dials. */
export type CampaignCore = Omit<CampaignResponse, 'effective_window' | 'next_dial_at' | 'waiting_reason'>;

export function campaignView(c: Campaign, poolIds: string[]): CampaignCore {
  return {
    uuid: c.id,
    name: c.name,
    description: c.description,
    agent_uuid: c.agentId,
    channel: c.channel,
    phone_number_uuid: c.phoneNumberId,
    template_setting_uuid: c.templateSettingId,
    rule_uuid: c.ruleId,
    timezone: c.timezone,
    start_at: iso(c.startAt),
    end_at: iso(c.endAt),
    window: c.window,
    retry: c.retry,
    max_concurrency: c.maxConcurrency,
    voicemail: c.voicemail as Record<string, unknown> | null,
    variables: c.variables,
    metadata: c.metadata,
    status: c.status,
    pool_uuids: poolIds,
    started_at: iso(c.startedAt),
    ended_at: iso(c.endedAt),
    created_at: iso(c.createdAt)!,
    updated_at: iso(c.updatedAt)!,
  };
}

export function taskView(t: TaskRow): TaskResponse {
  return {
    uuid: t.id,
    title: t.title,
    type: t.type,
    status: t.status,
    agent_uuid: t.agent_id,
    contact_uuid: t.contact_id,
    campaign_uuid: t.campaign_id,
    pool_uuid: t.pool_id,
    phone_number_uuid: t.phone_number_id,
    scheduled_at: iso(t.scheduled_at)!,
    expires_at: iso(t.expires_at),
    timezone: t.timezone,
    priority: t.priority,
    max_attempts: t.max_attempts,
    retry_interval_minutes: t.retry_interval_minutes,
    retry_strategy: t.retry_strategy,
    retry_on: t.retry_on,
    task_data: t.task_data,
    variables: t.variables,
    metadata: t.metadata,
    attempts_count: t.attempts,
    last_outcome: t.last_outcome,
    next_attempt_at: t.status === 'scheduled' || t.status === 'pending' ? iso(t.scheduled_at) : null,
    failure_reason: t.failure_reason,
    failure_data: t.failure_data ?? null,
    conversation_uuid: t.current_call_id ?? t.current_message_id,
    started_at: iso(t.started_at),
    completed_at: iso(t.completed_at),
    failed_at: iso(t.failed_at),
    created_at: iso(t.created_at)!,
    updated_at: iso(t.updated_at)!,
  };
}
