import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { checkMetadata, checkVariables } from '@/modules/calls/runtime/call-context';
import { agentVoicemail, checkVoicemail, resolveVoicemail } from '@/modules/agents/voicemail-policy';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { AgentContextReader, agentInBody } from '@/modules/conversations/agent-context';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { CampaignTasks } from '../engine/campaign-tasks';
import { CampaignWaits } from '../engine/campaign-waits';
import { windowClash } from '../engine/policy';
import { OutboundEvents } from '../outbound-events';
import { Campaign, NOT_STARTED, Rule } from '../outbound.entities';
import { CampaignsRepository } from './campaigns.repository';
import {
  AttachPoolsResponse,
  CampaignDetailResponse,
  CampaignListQuery,
  CampaignResponse,
  CampaignRuleResponse,
  CreateCampaignDto,
  UpdateCampaignDto,
} from './dto/campaign.dto';
import { RulesRepository } from './rules.repository';
import { TasksRepository } from './tasks.repository';
import { campaignView, ruleView } from './views';

const ENDED = ['completed', 'cancelled'];
const DRAFT_ONLY = [
  'agent_uuid',
  'channel',
  'phone_number_uuid',
  'template_setting_uuid',
  'timezone',
  'start_at',
];

/** Campaigns (§11.3): definition, pools and rule. The moves are in CampaignTransitions. */
@Injectable()
export class CampaignsService {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly rules: RulesRepository,
    private readonly tasks: TasksRepository,
    private readonly campaignTasks: CampaignTasks,
    private readonly waits: CampaignWaits,
    private readonly events: OutboundEvents,
    private readonly agents: AgentContextReader,
    private readonly numbers: PhoneNumbersService,
    private readonly unitOfWork: UnitOfWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(
    workspaceId: WorkspaceId,
    q: CampaignListQuery,
    listing?: boolean,
  ): Promise<Page<CampaignResponse>> {
    const [rows, total] = await this.campaigns.list(workspaceId, {
      status: q.status,
      agentId: q.agent_uuid,
      channel: q.channel,
      search: q.search,
      listing,
      ...skipTake(q),
    });
    const pools = await this.campaigns.poolIdsOf(
      workspaceId,
      rows.map((c) => c.id),
    );
    const items = await this.waits.responses(
      workspaceId,
      rows.map((c) => ({ campaign: c, core: campaignView(c, pools.get(c.id) ?? []) })),
    );
    return pageOf(items, total, q);
  }

  async find(workspaceId: WorkspaceId, id: string, tx?: Transaction): Promise<Campaign> {
    const c = await this.campaigns.findById(workspaceId, id, tx);
    if (!c) throw AppException.notFound('Campaign');
    return c;
  }

  async view(workspaceId: WorkspaceId, c: Campaign, tx?: Transaction): Promise<CampaignResponse> {
    const core = campaignView(
      c,
      (await this.campaigns.pools(workspaceId, c.id, tx)).map((p) => p.id),
    );
    return (await this.waits.responses(workspaceId, [{ campaign: c, core }], tx))[0];
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<CampaignDetailResponse> {
    const c = await this.find(workspaceId, id);
    const rule = c.ruleId ? await this.rules.findById(workspaceId, c.ruleId) : null;
    const policy = (await this.campaignTasks.policies(undefined, c)).get('')!;
    return {
      ...(await this.view(workspaceId, c)),
      rule: rule ? ruleView(rule) : null,
      effective_policy: policy,
      stats: await this.tasks.stats(workspaceId, c.id),
    };
  }

  /** A draft campaign; a listing passes its transaction, its own rule (made in it) and the listing mark. */
  async create(
    workspaceId: WorkspaceId,
    dto: CreateCampaignDto,
    tx?: Transaction,
    preset: { ruleId?: string | null; listing?: boolean } = {},
  ): Promise<CampaignResponse> {
    const agent = await agentInBody(this.agents, workspaceId, dto.agent_uuid);
    const channel = dto.channel ?? 'call';
    if (channel === 'whatsapp' && !dto.template_setting_uuid)
      throw AppException.invalid(
        'template_setting_uuid',
        'template_setting_uuid is required for whatsapp campaigns',
        'VALIDATION_ERROR',
      );
    if (dto.phone_number_uuid) await this.assertNumber(workspaceId, dto.phone_number_uuid);
    if (dto.rule_uuid && preset.ruleId === undefined) await this.assertRule(workspaceId, dto.rule_uuid);
    const c = this.campaigns.build(workspaceId, {
      name: dto.name.trim(),
      description: dto.description ?? null,
      agentId: agent.agent_uuid,
      channel,
      phoneNumberId: dto.phone_number_uuid ?? null,
      templateSettingId: dto.template_setting_uuid ?? null,
      ruleId: preset.ruleId === undefined ? (dto.rule_uuid ?? null) : preset.ruleId,
      timezone: dto.timezone ?? agent.timezone ?? 'UTC',
      startAt: dto.start_at ? new Date(dto.start_at) : null,
      endAt: dto.end_at ? new Date(dto.end_at) : null,
      window: null,
      retry: null,
      maxConcurrency: 10,
      variables: {},
      metadata: {},
      voicemail: null,
      status: 'draft',
      isListing: preset.listing ?? false,
      startedAt: null,
      endedAt: null,
    });
    this.applyEditable(c, dto);
    this.assertVoicemail(c, agent);
    const write = async (t: Transaction) => {
      this.assertWindow(c, c.ruleId ? await this.rules.findById(workspaceId, c.ruleId, t) : null);
      await this.campaigns.save(workspaceId, c, t);
      const pools = [...new Set(dto.pool_uuids ?? [])];
      const attached = await this.campaigns.attach(workspaceId, c.id, pools, t);
      if (attached.length !== pools.length)
        throw AppException.invalid(
          'pool_uuids',
          'pool_uuids names a pool that does not exist',
          'VALIDATION_ERROR',
        );
      const core = campaignView(c, attached);
      const [view] = await this.waits.responses(workspaceId, [{ campaign: c, core }], t);
      await this.events.campaign(t, c, view, null);
      return view;
    };
    return tx ? write(tx) : this.unitOfWork.run(write);
  }

  /** Draft: any key. Running or paused: the editable keys, applied to tasks not yet started. Ended: 409. */
  async update(workspaceId: WorkspaceId, id: string, dto: UpdateCampaignDto): Promise<CampaignResponse> {
    return this.unitOfWork.run(async (tx) => {
      const c = await this.lock(workspaceId, id, tx);
      if (ENDED.includes(c.status)) throw AppException.conflict(`Campaign is ${c.status}`);
      const sent = Object.keys(dto).filter((k) => (dto as Record<string, unknown>)[k] !== undefined);
      if (c.status !== 'draft') {
        const locked = sent.find((k) => DRAFT_ONLY.includes(k));
        if (locked)
          throw AppException.conflict(`Campaign is ${c.status}: ${locked} can change only in draft`);
      } else {
        if (dto.agent_uuid)
          c.agentId = (await agentInBody(this.agents, workspaceId, dto.agent_uuid)).agent_uuid;
        if (dto.channel) c.channel = dto.channel;
        if (dto.phone_number_uuid !== undefined) {
          if (dto.phone_number_uuid) await this.assertNumber(workspaceId, dto.phone_number_uuid);
          c.phoneNumberId = dto.phone_number_uuid;
        }
        if (dto.template_setting_uuid !== undefined) c.templateSettingId = dto.template_setting_uuid;
        if (dto.timezone) c.timezone = dto.timezone;
        if (dto.start_at !== undefined) c.startAt = dto.start_at ? new Date(dto.start_at) : null;
      }
      if (dto.name !== undefined) c.name = dto.name.trim();
      this.applyEditable(c, dto);
      if (dto.voicemail || (dto.agent_uuid && c.voicemail))
        this.assertVoicemail(c, await this.agents.agent(workspaceId, c.agentId));
      if (dto.window !== undefined)
        this.assertWindow(c, c.ruleId ? await this.rules.findById(workspaceId, c.ruleId, tx) : null);
      await this.campaigns.save(workspaceId, c, tx);
      if (c.status !== 'draft' && (dto.window !== undefined || dto.retry !== undefined))
        await this.campaignTasks.applyPolicy(tx, c, await this.campaigns.pools(workspaceId, c.id, tx));
      // Tasks carry the campaign's variables, metadata and voicemail keys from their creation: those not started
      // take the new ones.
      if (
        c.status !== 'draft' &&
        (dto.variables !== undefined || dto.metadata !== undefined || dto.voicemail !== undefined)
      )
        await this.tasks.applyContext(
          workspaceId,
          c.id,
          {
            variables: dto.variables === undefined ? undefined : c.variables,
            metadata: dto.metadata === undefined ? undefined : c.metadata,
            voicemail: dto.voicemail === undefined ? undefined : c.voicemail,
          },
          NOT_STARTED,
          tx,
        );
      return this.view(workspaceId, c, tx);
    });
  }

  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    await this.unitOfWork.run(async (tx) => {
      const c = await this.lock(workspaceId, id, tx);
      if (c.status === 'running' || c.status === 'paused')
        throw AppException.conflict(`Campaign is ${c.status}`);
      await this.campaigns.delete(workspaceId, { id }, tx);
    });
  }

  async attachPools(workspaceId: WorkspaceId, id: string, poolIds: string[]): Promise<AttachPoolsResponse> {
    const wanted = [...new Set(poolIds.map((p) => p.toLowerCase()))];
    return this.unitOfWork.run(async (tx) => {
      const c = await this.lock(workspaceId, id, tx);
      if (ENDED.includes(c.status)) throw AppException.conflict(`Campaign is ${c.status}`);
      const before = new Set((await this.campaigns.pools(workspaceId, id, tx)).map((p) => p.id));
      const attached = await this.campaigns.attach(workspaceId, id, wanted, tx);
      const existing = new Set([...before, ...attached]);
      const tasksCreated =
        c.status === 'draft' || !attached.length
          ? 0
          : await this.campaignTasks.create(tx, c, { poolIds: attached });
      return {
        campaign_uuid: id,
        pools_attached: attached,
        pool_uuids_not_found: wanted.filter((p) => !existing.has(p)),
        tasks_created: tasksCreated,
      };
    });
  }

  /** Detaches a pool; its tasks in this campaign that have not started are cancelled. */
  async detachPool(workspaceId: WorkspaceId, id: string, poolId: string): Promise<void> {
    await this.unitOfWork.run(async (tx) => {
      await this.lock(workspaceId, id, tx);
      if (!(await this.campaigns.detach(workspaceId, id, poolId, tx))) throw AppException.notFound('Pool');
      const moved = await this.tasks.move(
        workspaceId,
        { campaignId: id, poolId },
        NOT_STARTED,
        'cancelled',
        tx,
      );
      await this.events.tasks(tx, workspaceId, moved);
    });
  }

  async setRule(workspaceId: WorkspaceId, id: string, ruleId: string | null): Promise<CampaignRuleResponse> {
    return this.unitOfWork.run(async (tx) => {
      const c = await this.lock(workspaceId, id, tx);
      if (ENDED.includes(c.status)) throw AppException.conflict(`Campaign is ${c.status}`);
      const rule = ruleId ? await this.assertRule(workspaceId, ruleId) : null;
      this.assertWindow(c, rule);
      c.ruleId = ruleId;
      await this.campaigns.save(workspaceId, c, tx);
      if (c.status !== 'draft')
        await this.campaignTasks.applyPolicy(tx, c, await this.campaigns.pools(workspaceId, c.id, tx));
      return { campaign_uuid: id, rule: rule ? ruleView(rule) : null };
    });
  }

  async lock(workspaceId: WorkspaceId, id: string, tx: Transaction): Promise<Campaign> {
    const c = await this.campaigns.lock(workspaceId, id, tx);
    if (!c) throw AppException.notFound('Campaign');
    return c;
  }

  private applyEditable(c: Campaign, dto: UpdateCampaignDto | CreateCampaignDto): void {
    if (dto.description !== undefined) c.description = dto.description ?? null;
    if (dto.end_at !== undefined) c.endAt = dto.end_at ? new Date(dto.end_at) : null;
    if (c.endAt && c.startAt && c.endAt <= c.startAt)
      throw AppException.invalid('end_at', 'end_at must be after start_at', 'VALIDATION_ERROR');
    if (dto.window !== undefined) {
      const w = dto.window;
      if (w?.start_time && w.end_time && w.end_time <= w.start_time)
        throw AppException.invalid(
          'window.end_time',
          'window.end_time must be after window.start_time',
          'VALIDATION_ERROR',
        );
      c.window = w ? { ...w } : null;
    }
    if (dto.retry !== undefined) c.retry = dto.retry ? { ...dto.retry } : null;
    if (dto.max_concurrency !== undefined) {
      const limit = this.config.limits.maxConcurrentCalls;
      if (dto.max_concurrency > limit)
        throw AppException.invalid('max_concurrency', `max_concurrency must not be greater than ${limit}`);
      c.maxConcurrency = dto.max_concurrency;
    }
    if (dto.variables !== undefined) c.variables = checkVariables(dto.variables);
    if (dto.metadata !== undefined) c.metadata = checkMetadata(dto.metadata);
    if (dto.voicemail !== undefined) c.voicemail = checkVoicemail(dto.voicemail, 'voicemail');
  }

  /**
   * The campaign's window merged with the rule's and the defaults must end after it starts: else 422 naming the
   * campaign's key (`window.start_time` or `window.end_time`).
   */
  private assertWindow(c: Campaign, rule: Rule | null): void {
    const clash = windowClash(c.window, rule);
    if (!clash) return;
    const from = rule ? "the rule's" : 'the default';
    throw clash.field === 'end_time'
      ? AppException.invalid(
          'window.end_time',
          `window.end_time ${clash.end} must be after the start_time it is merged with (${clash.start}, ${from})`,
          'VALIDATION_ERROR',
        )
      : AppException.invalid(
          'window.start_time',
          `window.start_time ${clash.start} must be before the end_time it is merged with (${clash.end}, ${from})`,
          'VALIDATION_ERROR',
        );
  }

  /** The campaign's voicemail keys over its agent's must make a policy that holds (leave_message needs a message). */
  private assertVoicemail(c: Campaign, agent: AgentResponse): void {
    if (c.voicemail) resolveVoicemail([c.voicemail, agentVoicemail(agent)]);
  }

  private async assertNumber(workspaceId: WorkspaceId, id: string): Promise<void> {
    if (!(await this.numbers.find(workspaceId, id)))
      throw AppException.invalid(
        'phone_number_uuid',
        'phone_number_uuid names no phone number of this workspace',
        'VALIDATION_ERROR',
      );
  }

  private async assertRule(workspaceId: WorkspaceId, id: string) {
    const rule = await this.rules.findById(workspaceId, id);
    if (!rule)
      throw AppException.invalid(
        'rule_uuid',
        'rule_uuid names no rule of this workspace',
        'VALIDATION_ERROR',
      );
    return rule;
  }
}
