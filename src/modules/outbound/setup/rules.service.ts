import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { CampaignTasks } from '../engine/campaign-tasks';
import { DEFAULT_RETRY, DEFAULT_WINDOW, windowClash } from '../engine/policy';
import { Campaign, Rule } from '../outbound.entities';
import { CampaignsRepository } from './campaigns.repository';
import { CreateRuleDto, RuleFieldsDto, RuleListQuery, RuleResponse, UpdateRuleDto } from './dto/rule.dto';
import { RulesRepository } from './rules.repository';
import { ruleView } from './views';

/** Reusable contact policies (§11.2). */
@Injectable()
export class RulesService {
  constructor(
    private readonly rules: RulesRepository,
    private readonly campaigns: CampaignsRepository,
    private readonly campaignTasks: CampaignTasks,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async list(workspaceId: WorkspaceId, q: RuleListQuery): Promise<Page<RuleResponse>> {
    const [rows, total] = await this.rules.list(workspaceId, {
      type: q.type,
      search: q.search,
      ...skipTake(q),
    });
    return pageOf(rows.map(ruleView), total, q);
  }

  async find(workspaceId: WorkspaceId, id: string): Promise<Rule> {
    const rule = await this.rules.findById(workspaceId, id);
    if (!rule) throw AppException.notFound('Rule');
    return rule;
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<RuleResponse> {
    return ruleView(await this.find(workspaceId, id));
  }

  async create(workspaceId: WorkspaceId, dto: CreateRuleDto): Promise<RuleResponse> {
    const rule = this.rules.build(workspaceId, { name: dto.name.trim(), ...fieldsOf(dto, null) });
    await this.rules.save(workspaceId, rule);
    return ruleView(rule);
  }

  async update(workspaceId: WorkspaceId, id: string, dto: UpdateRuleDto): Promise<RuleResponse> {
    const rule = await this.find(workspaceId, id);
    Object.assign(rule, fieldsOf(dto, rule));
    if (dto.name !== undefined) rule.name = dto.name.trim();
    const using = await this.campaigns.usingRule(workspaceId, rule.id);
    if (dto.start_time !== undefined || dto.end_time !== undefined) this.assertCampaignWindows(using, rule);
    await this.unitOfWork.run(async (tx) => {
      await this.rules.save(workspaceId, rule, tx);
      // As a campaign's own PUT does: the new policy reaches the tasks not yet started of running and paused
      // campaigns that use the rule (each under its campaign's lock, as its other changes are).
      for (const used of using.filter((c) => c.status !== 'draft')) {
        const c = await this.campaigns.lock(workspaceId, used.id, tx);
        if (c?.ruleId !== rule.id || (c.status !== 'running' && c.status !== 'paused')) continue;
        await this.campaignTasks.applyPolicy(tx, c, await this.campaigns.pools(workspaceId, c.id, tx));
      }
    });
    return ruleView(rule);
  }

  /**
   * New times must not end the window of a campaign using the rule (not ended) at or before it starts, merged with
   * the campaign's own window keys: else 422 naming the rule's key that meets the campaign's.
   */
  private assertCampaignWindows(using: Campaign[], rule: Rule): void {
    for (const c of using) {
      const clash = windowClash(c.window, rule);
      if (!clash) continue;
      const field = clash.field === 'start_time' ? 'end_time' : 'start_time';
      throw AppException.invalid(
        field,
        `${field} would make the window of campaign ${c.id} end at or before it starts ` +
          `(${clash.start}–${clash.end} with the campaign's window.${clash.field})`,
        'VALIDATION_ERROR',
      );
    }
  }

  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    await this.find(workspaceId, id);
    if (await this.campaigns.liveUsing(workspaceId, { ruleId: id }))
      throw AppException.conflict('Rule is used by a running or paused campaign');
    await this.rules.delete(workspaceId, { id });
  }
}

type RuleFields = Pick<
  Rule,
  | 'type'
  | 'maxCallsPerDay'
  | 'maxTotalCalls'
  | 'retryIntervalMinutes'
  | 'retryStrategy'
  | 'retryOn'
  | 'days'
  | 'startTime'
  | 'endTime'
  | 'dncCheck'
>;

/** The rule's policy columns from the keys sent over `base` (defaults for a new rule); `text` makes one call. */
export function fieldsOf(dto: RuleFieldsDto, base: Rule | null): RuleFields {
  const f: RuleFields = {
    type: dto.type ?? base?.type ?? 'call',
    maxCallsPerDay: dto.max_calls_per_day ?? base?.maxCallsPerDay ?? 3,
    maxTotalCalls: dto.max_total_calls ?? base?.maxTotalCalls ?? 10,
    retryIntervalMinutes:
      dto.retry_interval_minutes ?? base?.retryIntervalMinutes ?? DEFAULT_RETRY.interval_minutes,
    retryStrategy: dto.retry_strategy ?? base?.retryStrategy ?? DEFAULT_RETRY.strategy,
    retryOn: dto.retry_on ? [...new Set(dto.retry_on)] : (base?.retryOn ?? DEFAULT_RETRY.on),
    days: dto.days ? [...new Set(dto.days)] : (base?.days ?? DEFAULT_WINDOW.days),
    startTime: dto.start_time ?? base?.startTime ?? DEFAULT_WINDOW.start_time,
    endTime: dto.end_time ?? base?.endTime ?? DEFAULT_WINDOW.end_time,
    dncCheck: dto.dnc_check ?? base?.dncCheck ?? true,
  };
  if (f.endTime <= f.startTime)
    throw AppException.invalid('end_time', 'end_time must be after start_time', 'VALIDATION_ERROR');
  if (f.type === 'text') {
    f.maxCallsPerDay = 1;
    f.maxTotalCalls = 1;
  }
  return f;
}
