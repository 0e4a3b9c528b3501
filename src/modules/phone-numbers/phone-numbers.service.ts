import { Inject, Injectable } from '@nestjs/common';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { QueryFailedError } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { Page, pageOf, PageQuery, skipTake } from '@/common/http/pagination';
import type { AgentChannelResponse, AgentPhoneNumberResponse } from '@/modules/agents/dto/agent.response';
import type { CreatePhoneNumberDto } from './dto/phone-numbers.dto';
import type { PhoneNumberChannelSnapshotResponse, PhoneNumberResponse } from './dto/phone-numbers.response';
import { DEFAULT_CAPABILITIES, NumberChannel, PhoneNumber } from './phone-number.entity';
import {
  AgentBindingRow,
  BindingRow,
  MessengerPagesRepository,
  PhoneNumberBindingsRepository,
  PhoneNumbersRepository,
} from './phone-numbers.repository';

/** What an agent is bound to: its numbers (with the channels it serves on each) and its channel list. */
export interface AgentBindings {
  phone_numbers: AgentPhoneNumberResponse[];
  channels: AgentChannelResponse[];
}

const isUniqueViolation = (err: unknown) =>
  err instanceof QueryFailedError && (err.driverError as { code?: string })?.code === '23505';

/**
 * Phone numbers the workspace owns, the bindings of their channels to agents, and Messenger pages. Callers
 * check that the agent exists (AgentsService) before binding.
 */
@Injectable()
export class PhoneNumbersService {
  constructor(
    private readonly numbers: PhoneNumbersRepository,
    private readonly bindings: PhoneNumberBindingsRepository,
    private readonly pages: MessengerPagesRepository,
    private readonly unitOfWork: UnitOfWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  static toResponse(n: PhoneNumber): PhoneNumberResponse {
    return {
      phone_number_uuid: n.id,
      uuid: n.id,
      number: n.number,
      provider: n.provider,
      status: n.status,
      country_code: n.countryCode,
      type: n.type,
      capabilities: { ...DEFAULT_CAPABILITIES, ...n.capabilities },
      is_external: n.isExternal,
      source: n.source,
      created_at: n.createdAt.toISOString(),
      updated_at: n.updatedAt.toISOString(),
    };
  }

  async register(workspaceId: string, dto: CreatePhoneNumberDto): Promise<PhoneNumberResponse> {
    const parsed = parsePhoneNumberFromString(dto.number);
    const entity = this.numbers.build(workspaceId, {
      number: dto.number,
      provider: dto.provider ?? 'sandbox',
      status: 'active',
      countryCode: dto.country_code ?? parsed?.country ?? null,
      type: dto.type ?? null,
      capabilities: { ...DEFAULT_CAPABILITIES, ...(dto.capabilities ?? {}) },
      isExternal: false,
      source: 'purchased',
    });
    try {
      await this.numbers.save(workspaceId, entity);
    } catch (err) {
      if (isUniqueViolation(err))
        throw AppException.conflict('This number is already registered in the workspace');
      throw err;
    }
    return PhoneNumbersService.toResponse((await this.numbers.findById(workspaceId, entity.id))!);
  }

  async list(workspaceId: string, query: PageQuery): Promise<Page<PhoneNumberResponse>> {
    const [rows, total] = await this.numbers.findAndCount(workspaceId, {
      order: { createdAt: 'DESC', id: 'DESC' },
      ...skipTake(query),
    });
    return pageOf(
      rows.map((n) => PhoneNumbersService.toResponse(n)),
      total,
      query,
    );
  }

  async get(workspaceId: string, id: string): Promise<PhoneNumber> {
    const n = await this.numbers.findById(workspaceId, id);
    if (!n) throw AppException.notFound('Phone number');
    return n;
  }

  /** The number, or null: for calls, whose body references answer 422. */
  find(workspaceId: string, id: string): Promise<PhoneNumber | null> {
    return this.numbers.findById(workspaceId, id);
  }

  /** The active number of a provider named by its inbound hook, in whichever workspace holds it. */
  async findProviderNumber(number: string, provider: string): Promise<PhoneNumber | null> {
    const owner = await this.numbers.ownerOfProviderNumber(number, provider);
    return owner ? this.numbers.findById(owner.workspaceId, owner.id) : null;
  }

  findByNumber(workspaceId: string, number: string): Promise<PhoneNumber | null> {
    return this.numbers.findOne(workspaceId, { number });
  }

  /** The number whose `channel` the agent serves (the oldest binding when several), or null. */
  async boundNumber(
    workspaceId: string,
    agentId: string,
    channel: NumberChannel,
  ): Promise<PhoneNumber | null> {
    const [binding] = await this.bindings.find(workspaceId, {
      where: { agentId, channel },
      order: { createdAt: 'ASC' },
      take: 1,
    });
    return binding ? this.numbers.findById(workspaceId, binding.phoneNumberId) : null;
  }

  /** The agent serving the number's `channel`, or null. */
  async boundAgent(
    workspaceId: string,
    phoneNumberId: string,
    channel: NumberChannel,
  ): Promise<string | null> {
    const binding = await this.bindings.findOne(workspaceId, { phoneNumberId, channel });
    return binding?.agentId ?? null;
  }

  async read(workspaceId: string, id: string): Promise<PhoneNumberResponse> {
    return PhoneNumbersService.toResponse(await this.get(workspaceId, id));
  }

  /** Removes the number and every binding of it. */
  async remove(workspaceId: string, id: string): Promise<void> {
    if (!(await this.numbers.delete(workspaceId, { id }))) throw AppException.notFound('Phone number');
  }

  /**
   * Binds channels of a number to an agent, all or none. A channel already served by another agent is 409;
   * one already served by this agent stays as it is. `field` names the uuid in 422 answers.
   */
  async bind(
    workspaceId: string,
    agentId: string,
    phoneNumberId: string,
    channels: NumberChannel[],
    field = 'phone_number_uuid',
  ): Promise<void> {
    const number = await this.numbers.findById(workspaceId, phoneNumberId);
    if (!number) throw AppException.invalid(field, `${field} does not name a phone number of this workspace`);
    const capabilities = { ...DEFAULT_CAPABILITIES, ...number.capabilities };
    const incapable = channels.filter((c) => !capabilities[c]);
    if (incapable.length)
      throw AppException.conflict(`The number ${number.number} is not capable of ${incapable.join(', ')}`);
    await this.unitOfWork.run(async (m) => {
      for (const channel of channels) {
        const claim = await this.bindings.claim(
          workspaceId,
          this.bindings.build(workspaceId, { phoneNumberId, agentId, channel }),
          m,
        );
        if (claim.taken && claim.agentId !== agentId)
          throw AppException.conflict(
            `The ${channel} channel of ${number.number} is already bound to another agent`,
          );
      }
    });
  }

  /** Unbinds every channel of the number from the agent; 404 when the agent serves none of them. */
  async unbind(workspaceId: string, agentId: string, phoneNumberId: string): Promise<void> {
    const removed = await this.bindings.delete(workspaceId, { agentId, phoneNumberId });
    if (!removed) throw AppException.notFound('Phone number binding');
  }

  /** Unbinds the agent's WhatsApp messaging; the numbers stay on the account. */
  async unbindChannel(workspaceId: string, agentId: string, channel: NumberChannel): Promise<number> {
    return this.bindings.delete(workspaceId, { agentId, channel });
  }

  async bindMessenger(
    workspaceId: string,
    agentId: string,
    pageId: string,
    pageName?: string,
  ): Promise<void> {
    await this.unitOfWork.run(async (m) => {
      const page = await this.pages.ensureLocked(
        workspaceId,
        { id: this.pages.build(workspaceId, { pageId }).id, pageId, pageName: pageName ?? null },
        m,
      );
      if (page.agentId && page.agentId !== agentId)
        throw AppException.conflict(`The Messenger page ${pageId} is already bound to another agent`);
      page.agentId = agentId;
      if (pageName !== undefined) page.pageName = pageName;
      await this.pages.save(workspaceId, page, m);
    });
  }

  /** The agent's pages become unbound; they stay on the account and can be bound again. */
  async unbindMessenger(workspaceId: string, agentId: string): Promise<number> {
    const pages = await this.pages.find(workspaceId, { where: { agentId } });
    for (const p of pages) p.agentId = null;
    if (pages.length) await this.pages.save(workspaceId, pages);
    return pages.length;
  }

  /** The agent's numbers and channels from the rows of AGENT_BINDINGS_SQL. */
  static toAgentBindings(rows: AgentBindingRow[]): AgentBindings {
    const out: AgentBindings = { phone_numbers: [], channels: [] };
    for (const r of rows) {
      const boundAt = new Date(r.bound_at).toISOString();
      if (r.channel === 'messenger') {
        out.channels.push({
          channel: 'messenger',
          phone_number_uuid: null,
          number: null,
          page_id: r.page_id,
          page_name: r.page_name,
          bound_at: boundAt,
        });
        continue;
      }
      let number = out.phone_numbers.find((p) => p.phone_number_uuid === r.phone_number_id);
      if (!number) {
        number = {
          phone_number_uuid: r.phone_number_id,
          number: r.number,
          provider: r.provider,
          status: r.status,
          country_code: r.country_code,
          type: r.type,
          capabilities: { ...DEFAULT_CAPABILITIES, ...r.capabilities },
          channels: [],
        };
        out.phone_numbers.push(number);
      }
      number.channels.push(r.channel);
      out.channels.push({
        channel: r.channel,
        phone_number_uuid: r.phone_number_id,
        number: r.number,
        page_id: null,
        page_name: null,
        bound_at: boundAt,
      });
    }
    return out;
  }

  async snapshotById(workspaceId: string, id: string): Promise<PhoneNumberChannelSnapshotResponse> {
    return this.snapshot(workspaceId, await this.get(workspaceId, id));
  }

  async snapshotByNumber(workspaceId: string, number: string): Promise<PhoneNumberChannelSnapshotResponse> {
    const n = await this.numbers.findOne(workspaceId, { number });
    if (!n) throw AppException.notFound('Phone number');
    return this.snapshot(workspaceId, n);
  }

  private async snapshot(workspaceId: string, n: PhoneNumber): Promise<PhoneNumberChannelSnapshotResponse> {
    const rows = await this.bindings.withAgents(workspaceId, [n.id]);
    const caps = { ...DEFAULT_CAPABILITIES, ...n.capabilities };
    const limit = this.config.limits.maxConcurrentCalls;
    const bound = (channel: NumberChannel): BindingRow | undefined => rows.find((r) => r.channel === channel);
    const voice = (channel: 'call' | 'sms') => {
      const b = bound(channel);
      return {
        capable: caps[channel],
        enabled: caps[channel] && !!b,
        channel_limit: limit,
        whitelisted_destinations: n.countryCode ? [n.countryCode] : [],
        bound: !!b,
        agent_uuid: b?.agent_id ?? null,
        agent_name: b?.agent_name ?? null,
      };
    };
    const wa = bound('whatsapp');
    const call = voice('call');
    return {
      phone_number_uuid: n.id,
      number: n.number,
      is_external: n.isExternal,
      source: n.source,
      channels: {
        call,
        sms: voice('sms'),
        whatsapp: { bound: !!wa, agent_uuid: wa?.agent_id ?? null, agent_name: wa?.agent_name ?? null },
        inbound: { enabled: call.enabled, channel_limit: limit },
      },
    };
  }
}
