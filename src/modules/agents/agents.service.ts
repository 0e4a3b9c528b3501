import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { AgentNotFound } from '@/common/errors/domain-errors';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { checkVoicemail } from './voicemail-policy';
import { checkVoiceSettings } from './voice-settings';
import { validSttMode } from '@/providers/speech/speech.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Agent, AgentSettings } from './agent.entity';
import { AgentViewExtras, AgentViewRow, AgentViewsRepository } from './agent-views.repository';
import { AgentsRepository } from './agents.repository';
import type { CreateAgentDto, ListAgentsQuery, UpdateAgentDto } from './dto/agent.dto';
import type { AgentResponse, FlowCatalogAgentResponse } from './dto/agent.response';

/** Profile fields: JSON name to entity property. */
const PROFILE: [keyof CreateAgentDto, keyof Agent][] = [
  ['name', 'name'],
  ['description', 'description'],
  ['company_name', 'companyName'],
  ['role', 'role'],
  ['objective', 'objective'],
  ['tone', 'tone'],
  ['behavior_guidelines', 'behaviorGuidelines'],
  ['company_service', 'companyService'],
  ['topic', 'topic'],
  ['length_detail', 'lengthDetail'],
  ['interest_of_product', 'interestOfProduct'],
  ['negative_response', 'negativeResponse'],
  ['custom_prompt', 'customPrompt'],
  ['language', 'language'],
  ['speed', 'speed'],
  ['timezone', 'timezone'],
  ['custom_llm_url', 'customLlmUrl'],
  ['recommendations', 'recommendations'],
  ['status', 'status'],
  ['appointment_scheduling_enabled', 'appointmentSchedulingEnabled'],
  ['appointment_scheduling_randomly', 'appointmentSchedulingRandomly'],
];
/** Fields that cannot be cleared with null. */
const NOT_NULL = new Set([
  'name',
  'status',
  'appointment_scheduling_enabled',
  'appointment_scheduling_randomly',
  'settings',
]);
const SETTINGS_BLOCKS = ['voice', 'text', 'memorize', 'evaluation'] as const;

/** Agents: the one owner of the agents table and of every collection an agent holds. */
@Injectable()
export class AgentsService {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly views: AgentViewsRepository,
  ) {}

  /** The agent of this workspace, or 404 (the same answer for another workspace's agent). */
  async get(workspaceId: WorkspaceId, agentId: string): Promise<Agent> {
    const agent = await this.agents.findById(workspaceId, agentId);
    if (!agent) throw AppException.notFound('Agent');
    return agent;
  }

  exists(workspaceId: WorkspaceId, agentId: string): Promise<boolean> {
    return this.agents.exists(workspaceId, { id: agentId });
  }

  /** Whole agents (profile, collections, numbers, channels) in the order of `ids`. */
  async loadViews(workspaceId: WorkspaceId, ids: string[]): Promise<AgentResponse[]> {
    const rows = await this.views.load(workspaceId, ids);
    return rows.map((r) => AgentsService.toResponse(r, r.bindings));
  }

  /** The whole agent as the API answers it; 404 when it is not in this workspace. */
  async view(workspaceId: WorkspaceId, agentId: string): Promise<AgentResponse> {
    const [view] = await this.loadViews(workspaceId, [agentId]);
    if (!view) throw new AgentNotFound(agentId);
    return view;
  }

  /**
   * The whole agent with other modules' rows read in the same statement (`extras`, correlated with `agents a`), and
   * the workspace's agent configuration version as of that read; 404 when it is not in this workspace.
   */
  async viewWith(
    workspaceId: WorkspaceId,
    agentId: string,
    name: string,
    extras: AgentViewExtras,
  ): Promise<{ view: AgentResponse; extras: Record<string, unknown>; configVersion: string | null }> {
    const row = await this.views.loadWith(workspaceId, agentId, name, extras);
    if (!row) throw AppException.notFound('Agent');
    const picked = Object.fromEntries(Object.keys(extras).map((k) => [k, row[k]]));
    return {
      view: AgentsService.toResponse(row, row.bindings),
      extras: picked,
      configVersion: row.config_version,
    };
  }

  async list(workspaceId: WorkspaceId, query: ListAgentsQuery): Promise<Page<AgentResponse>> {
    const { skip, take } = skipTake(query);
    const [ids, total] = await this.agents.page(
      workspaceId,
      { status: query.status, search: query.search },
      skip,
      take,
    );
    return pageOf(await this.loadViews(workspaceId, ids), total, query);
  }

  async create(workspaceId: WorkspaceId, dto: CreateAgentDto): Promise<AgentResponse> {
    const agent = this.agents.build(workspaceId, { status: 'pending' });
    this.apply(agent, dto, true);
    await this.agents.save(workspaceId, agent);
    return this.view(workspaceId, agent.id);
  }

  async update(workspaceId: WorkspaceId, agentId: string, dto: UpdateAgentDto): Promise<AgentResponse> {
    const agent = await this.get(workspaceId, agentId);
    this.apply(agent, dto, false);
    agent.updatedAt = new Date();
    await this.agents.save(workspaceId, agent);
    return this.view(workspaceId, agentId);
  }

  async remove(workspaceId: WorkspaceId, agentId: string): Promise<void> {
    if (!(await this.agents.delete(workspaceId, { id: agentId }))) throw AppException.notFound('Agent');
  }

  /** Agents with status `ready`, for the automation flow builder; 404 when there is none. */
  async catalog(workspaceId: WorkspaceId): Promise<FlowCatalogAgentResponse[]> {
    const ready = await this.agents.readyForCatalog(workspaceId);
    if (!ready.length) throw new AppException('RESOURCE_NOT_FOUND', 'No ready agent found');
    return ready.map((a) => ({ uuid: a.id, name: a.name, role: a.role, status: a.status }));
  }

  /** Only keys present in the body change; each settings block merges key by key. */
  private apply(agent: Agent, dto: UpdateAgentDto, creating: boolean): void {
    for (const [json, prop] of PROFILE) {
      const value = dto[json];
      if (value === undefined) continue;
      if (value === null && NOT_NULL.has(json))
        throw AppException.invalid(json, `${json} must not be null`, 'VALIDATION_ERROR');
      (agent as unknown as Record<string, unknown>)[prop] = value;
    }
    if (dto.settings === null)
      throw AppException.invalid('settings', 'settings must not be null', 'VALIDATION_ERROR');
    const current: AgentSettings =
      creating || !agent.settings ? { voice: {}, text: {}, memorize: {}, evaluation: {} } : agent.settings;
    if (creating || dto.settings) {
      // An answering-machine policy is refused by name when a key does not hold (settings.voice.voicemail.action).
      checkVoicemail(dto.settings?.voice?.voicemail, 'settings.voice.voicemail');
      // Turn-taking keys are refused by name when out of range (settings.voice.endpointing.min_silence_ms).
      checkVoiceSettings(dto.settings?.voice ?? undefined);
      const next = { ...current };
      for (const block of SETTINGS_BLOCKS) {
        const patch = dto.settings?.[block];
        if (patch === null)
          throw AppException.invalid(`settings.${block}`, `settings.${block} must be an object`);
        // The voice keys checked here turn a tool or a service on (the others are read leniently by the runtime).
        if (block === 'voice' && patch && 'dtmf_tool' in patch && typeof patch.dtmf_tool !== 'boolean')
          throw AppException.invalid(
            'settings.voice.dtmf_tool',
            'settings.voice.dtmf_tool must be a boolean',
          );
        if (block === 'voice' && patch && !validSttMode(patch.stt_mode))
          throw AppException.invalid(
            'settings.voice.stt_mode',
            'settings.voice.stt_mode must be one of batch, realtime (or null for the configured STT_MODE)',
          );
        if (patch) next[block] = { ...(current[block] ?? {}), ...patch };
      }
      agent.settings = next;
    }
  }

  static toResponse(
    r: AgentViewRow,
    bindings: Pick<AgentResponse, 'phone_numbers' | 'channels'>,
  ): AgentResponse {
    return {
      agent_uuid: r.id,
      uuid: r.id,
      name: r.name,
      description: r.description,
      company_name: r.company_name,
      role: r.role,
      objective: r.objective,
      tone: r.tone,
      behavior_guidelines: r.behavior_guidelines,
      company_service: r.company_service,
      topic: r.topic,
      length_detail: r.length_detail,
      interest_of_product: r.interest_of_product,
      negative_response: r.negative_response,
      custom_prompt: r.custom_prompt,
      language: r.language,
      speed: r.speed,
      timezone: r.timezone,
      custom_llm_url: r.custom_llm_url,
      recommendations: r.recommendations,
      status: r.status,
      appointment_scheduling_enabled: r.appointment_scheduling_enabled,
      appointment_scheduling_randomly: r.appointment_scheduling_randomly,
      settings: {
        voice: {},
        text: {},
        memorize: {},
        evaluation: {},
        ...(r.settings as Partial<AgentSettings>),
      },
      guidelines: r.guidelines,
      notes: r.notes,
      procedures: r.procedures,
      training: r.training,
      intents: r.intents,
      webhooks: r.webhooks,
      appointments: {
        scheduling_enabled: r.appointment_scheduling_enabled,
        scheduling_randomly: r.appointment_scheduling_randomly,
      },
      routing_rules: r.routing_rules,
      guard_rules: r.guard_rules,
      phone_numbers: bindings.phone_numbers,
      channels: bindings.channels,
      created_at: r.created_at,
      updated_at: r.updated_at,
    };
  }
}
