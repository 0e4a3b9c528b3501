import { Injectable } from '@nestjs/common';
import { newId } from '@/common/persistence/base.entity';
import type { Transaction } from '@/common/persistence/unit-of-work';
import { OutboundEvents } from '../outbound-events';
import { CallingWindow, Campaign, NOT_STARTED, Pool } from '../outbound.entities';
import { CampaignsRepository } from '../setup/campaigns.repository';
import { RulesRepository } from '../setup/rules.repository';
import { TasksRepository } from '../setup/tasks.repository';
import { NewTask } from '../task-row';
import { nextInWindow } from './calling-window';
import { OutboundClock } from './outbound-clock';
import { EffectivePolicy, effectivePolicy } from './policy';
import { TaskPoliciesRepository } from './task-policies.repository';

/** The tasks a campaign owns: one per member of its pools (a contact in two pools gets one, from the first). */
@Injectable()
export class CampaignTasks {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly tasks: TasksRepository,
    private readonly taskPolicies: TaskPoliciesRepository,
    private readonly rules: RulesRepository,
    private readonly events: OutboundEvents,
    private readonly clock: OutboundClock,
  ) {}

  /**
   * The merged policy of each of the campaign's pools, and under `''` the campaign's own (at the level of its first
   * pool, the one a contact in several pools takes its task from).
   */
  async policies(tx: Transaction | undefined, c: Campaign): Promise<Map<string, EffectivePolicy>> {
    const rule = c.ruleId ? await this.rules.findById(c.workspaceId, c.ruleId, tx) : null;
    const pools = await this.campaigns.pools(c.workspaceId, c.id, tx);
    const out = new Map<string, EffectivePolicy>([['', effectivePolicy(c, rule, pools[0] ?? null)]]);
    for (const p of pools) out.set(p.id, effectivePolicy(c, rule, p));
    return out;
  }

  /**
   * Creates, in the caller's transaction (which holds the campaign's lock), the tasks of members that have none
   * that has not ended, due at the next instant inside the window in the contact's zone. Answers how many were created.
   */
  async create(
    tx: Transaction,
    c: Campaign,
    only: { poolIds?: string[]; contactIds?: string[] } = {},
  ): Promise<number> {
    const members = await this.campaigns.membersWithoutTask(c.workspaceId, c.id, tx, only);
    if (!members.length) return 0;
    const policies = await this.policies(tx, c);
    const from = Math.max(await this.clock.now(), c.startAt?.getTime() ?? 0);
    const held = c.status === 'paused';
    const rows: NewTask[] = members.map((m) => {
      const policy = policies.get(m.pool_id) ?? policies.get('')!;
      const zone = policy.window.use_contact_timezone && m.timezone ? m.timezone : c.timezone;
      const due = nextInWindow(from, policy.window, zone) ?? from;
      return {
        id: newId(),
        title: c.name,
        type: c.channel === 'whatsapp' ? 'send_message' : 'make_call',
        status: held ? 'on_hold' : 'scheduled',
        held_status: held ? 'scheduled' : null,
        agent_id: c.agentId,
        contact_id: m.contact_id,
        campaign_id: c.id,
        pool_id: m.pool_id,
        phone_number_id: c.phoneNumberId,
        scheduled_at: new Date(due),
        expires_at: null,
        timezone: c.timezone,
        priority: m.priority,
        member_added_at: m.added_at,
        max_attempts: policy.retry.max_attempts,
        max_per_day: policy.retry.max_per_day,
        retry_interval_minutes: policy.retry.interval_minutes,
        retry_strategy: policy.retry.strategy,
        retry_on: policy.retry.on,
        window: policy.window,
        task_data:
          c.channel === 'whatsapp'
            ? { message_type: 'whatsapp_template', template_setting_uuid: c.templateSettingId }
            : null,
        variables: c.variables,
        metadata: c.metadata,
        voicemail: c.voicemail,
      };
    });
    const created = await this.tasks.insertMany(c.workspaceId, rows, tx);
    await this.events.tasks(
      tx,
      c.workspaceId,
      created.map((task) => ({ task, previous: null })),
    );
    return created.length;
  }

  /**
   * A running or paused campaign's new policy reaches its tasks that have not started. A new window also moves the
   * due time of those waiting (`scheduled`, or held as such): one waiting for its first attempt is due at the new
   * window's next opening (from now, or from the campaign's `start_at`), in its zone, as if created now; one waiting
   * for a retry keeps its time unless the new window excludes it (then the next opening after it). A task `pending`
   * is already due: a window closed for it is met at its claim.
   */
  async applyPolicy(tx: Transaction, c: Campaign, pools: Pool[]): Promise<void> {
    const policies = await this.policies(tx, c);
    const from = Math.max(await this.clock.now(), c.startAt?.getTime() ?? 0);
    for (const p of pools) {
      const policy = policies.get(p.id)!;
      await this.reschedule(tx, c, p.id, policy.window, from);
      await this.taskPolicies.applyPolicy(c.workspaceId, c.id, p.id, policy, NOT_STARTED, tx);
    }
  }

  /** The due times under a new window (see `applyPolicy`): computed once per zone, written in two statements. */
  private async reschedule(
    tx: Transaction,
    c: Campaign,
    poolId: string,
    window: CallingWindow,
    from: number,
  ): Promise<void> {
    const waiting = await this.taskPolicies.waitingForWindow(c.workspaceId, c.id, poolId, window, tx);
    const byZone: { zone: string; at: Date }[] = [];
    const byId: { id: string; at: Date }[] = [];
    for (const w of waiting) {
      if (w.id === null) {
        const at = nextInWindow(from, window, w.zone);
        if (at !== null) byZone.push({ zone: w.zone, at: new Date(at) });
      } else {
        const was = w.scheduled_at!.getTime();
        const at = nextInWindow(was, window, w.zone);
        if (at !== null && at !== was) byId.push({ id: w.id, at: new Date(at) });
      }
    }
    await this.taskPolicies.rescheduleForWindow(c.workspaceId, c.id, poolId, window, byZone, byId, tx);
  }
}
