import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import type { Transaction } from '@/common/persistence/unit-of-work';
import { CallSlots } from '@/modules/calls/runtime/call-slots';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Campaign, Rule, WaitingReason } from '../outbound.entities';
import { CampaignsRepository, PoolWaitRow } from '../setup/campaigns.repository';
import type { CampaignResponse } from '../setup/dto/campaign.dto';
import { RulesRepository } from '../setup/rules.repository';
import type { CampaignCore } from '../setup/views';
import type { TaskRow } from '../task-row';
import { localDay, nextInWindow } from './calling-window';
import { OutboundClock } from './outbound-clock';
import { effectivePolicy } from './policy';
import { dayZoneOf, zoneOf } from './task-runner';

export type CampaignWait = Pick<CampaignResponse, 'effective_window' | 'next_dial_at' | 'waiting_reason'>;

interface Next {
  at: number | null;
  reason: WaitingReason | null;
}

/**
 * What a campaign's answer says beyond its row: the window its tasks are dialled in, when it next dials and why it
 * waits. Read from stored state only (the tasks' due times and attempts, the window, the pools' and campaign's
 * slots), for a whole page at once: the rules in one query, the running campaigns' pools in one statement (see
 * `CampaignsRepository.waitingPools`), and the workspace's live calls from Redis only when a call campaign could
 * dial now.
 */
@Injectable()
export class CampaignWaits {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly rules: RulesRepository,
    private readonly clock: OutboundClock,
    private readonly slots: CallSlots,
  ) {}

  /** The answers of the campaigns, in their order, from their core views. */
  async responses(
    workspaceId: WorkspaceId,
    rows: { campaign: Campaign; core: CampaignCore }[],
    tx?: Transaction,
  ): Promise<CampaignResponse[]> {
    const waits = await this.of(
      workspaceId,
      rows.map((r) => r.campaign),
      tx,
    );
    return rows.map((r) => ({ ...r.core, ...waits.get(r.campaign.id)! }));
  }

  async of(
    workspaceId: WorkspaceId,
    campaigns: Campaign[],
    tx?: Transaction,
  ): Promise<Map<string, CampaignWait>> {
    const ruleIds = [...new Set(campaigns.map((c) => c.ruleId).filter((id): id is string => !!id))];
    const rules = new Map<string, Rule>(
      ruleIds.length
        ? (await this.rules.find(workspaceId, { where: { id: In(ruleIds) } }, tx)).map((r) => [r.id, r])
        : [],
    );
    const running = campaigns.filter((c) => c.status === 'running');
    const pools = new Map<string, PoolWaitRow[]>();
    for (const row of await this.campaigns.waitingPools(
      workspaceId,
      running.map((c) => c.id),
      tx,
    ))
      pools.set(row.campaign_id, [...(pools.get(row.campaign_id) ?? []), row]);
    const now = running.length ? await this.clock.now() : Date.now();
    // The workspace's call limit is read once, and only when a call campaign would dial now.
    let workspaceFull: boolean | undefined;
    const out = new Map<string, CampaignWait>();
    for (const c of campaigns) {
      let next = nextDial(c, pools.get(c.id) ?? [], now);
      // Dialling now (a time, no reason): a call campaign also needs a free call slot of the workspace.
      if (next.reason === null && next.at !== null && c.channel === 'call') {
        workspaceFull ??= (await this.slots.count(workspaceId)) >= this.slots.workspaceLimit;
        if (workspaceFull) next = { at: null, reason: 'concurrency' };
      }
      const at = next.at !== null && c.endAt && next.at >= c.endAt.getTime() ? null : next.at;
      out.set(c.id, {
        effective_window: effectivePolicy(c, c.ruleId ? (rules.get(c.ruleId) ?? null) : null, null).window,
        next_dial_at: at === null ? null : new Date(at).toISOString(),
        waiting_reason: next.reason,
      });
    }
    return out;
  }
}

/**
 * When the campaign next dials and why it waits until then. A pool's task is due when it is `pending` or its due
 * time has come (the dispatcher's next pass makes it pending); it dials now when the campaign and its pool have a
 * free slot. Due tasks without a slot wait for one (`concurrency`, no time); otherwise the earliest scheduled task
 * of an active pool gives the time, and its state the reason.
 */
function nextDial(c: Campaign, pools: PoolWaitRow[], now: number): Next {
  if (c.status === 'paused') return { at: null, reason: 'paused' };
  if (c.status !== 'running') return { at: null, reason: null };
  const free = c.maxConcurrency - pools.reduce((n, p) => n + p.live, 0);
  let dialsNow = false;
  let blocked = false;
  let inactive = false;
  let earliest: PoolWaitRow | null = null;
  for (const p of pools) {
    const scheduled = p.scheduled_at?.getTime() ?? null;
    if (!p.is_active) {
      inactive ||= p.has_pending || scheduled !== null;
      continue;
    }
    if (p.has_pending || (scheduled !== null && scheduled <= now)) {
      if (free > 0 && p.cap > p.live) dialsNow = true;
      else blocked = true;
    } else if (scheduled !== null && (!earliest || scheduled < earliest.scheduled_at!.getTime()))
      earliest = p;
  }
  const startAt = c.startAt?.getTime() ?? 0;
  if (startAt > now) {
    const first = dialsNow || blocked ? now : (earliest?.scheduled_at?.getTime() ?? null);
    return { at: first === null ? null : Math.max(startAt, first), reason: 'before_start' };
  }
  if (dialsNow) return { at: now, reason: null };
  if (blocked) return { at: null, reason: 'concurrency' };
  if (earliest) return { at: earliest.scheduled_at!.getTime(), reason: whyLater(earliest, now) };
  return { at: null, reason: inactive ? 'pools_inactive' : 'no_due_tasks' };
}

/**
 * Why a scheduled task is due later than now: its contact had today's calls (its latest attempt's local day is
 * today and used the cap), its due time is an opening of its window (closed just before), a retry interval after an
 * attempt, or else a time set for it.
 */
function whyLater(p: PoolWaitRow, now: number): WaitingReason {
  const task = { window: p.window, timezone: p.timezone } as TaskRow;
  const at = p.scheduled_at!.getTime();
  const attempts = p.attempts ?? 0;
  if (
    attempts > 0 &&
    p.max_per_day &&
    (p.last_day_attempts ?? 0) >= p.max_per_day &&
    p.last_day === localDay(now, dayZoneOf(task, p.contact_timezone))
  )
    return 'daily_cap';
  if (p.window && nextInWindow(at - 1000, p.window, zoneOf(task, p.contact_timezone)) !== at - 1000)
    return 'outside_window';
  return attempts > 0 ? 'retry_interval' : 'no_due_tasks';
}
