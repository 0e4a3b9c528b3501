import { Inject, Injectable } from '@nestjs/common';
import { SecretBox } from '@/common/crypto/secret-box';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, PageQuery, skipTake } from '@/common/http/pagination';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AgentsService } from '@/modules/agents/agents.service';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import type { PhoneNumber } from '@/modules/phone-numbers/phone-number.entity';
import { ChannelBindingsService } from '@/modules/phone-numbers/channel-bindings.service';
import { ExternalNumbersService } from '@/modules/phone-numbers/external-numbers.service';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import type {
  AssignTrunkNumberDto,
  BindSipTrunkDto,
  CreateSipTrunkDto,
  CreateTrunkNumberDto,
} from './dto/sip.dto';
import { SipTrunkResponse, TrunkNumberResponse } from './dto/sip.response';
import { SipTrunkConnection } from './sip.entities';
import { SipTrunkConnectionsRepository, SipTrunkNumbersRepository } from './sip.repositories';

/** SIP trunk connections, the external numbers they carry, and binding those numbers to agents for calls. */
@Injectable()
export class SipTrunksService {
  constructor(
    private readonly trunks: SipTrunkConnectionsRepository,
    private readonly trunkNumbers: SipTrunkNumbersRepository,
    private readonly numbers: PhoneNumbersService,
    private readonly channels: ChannelBindingsService,
    private readonly external: ExternalNumbersService,
    private readonly agents: AgentsService,
    private readonly secrets: SecretBox,
    private readonly unitOfWork: UnitOfWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Twilio places trunk calls when configured; asking for it while it is not is 422 on `provider`. */
  private provider(asked: string | undefined, fallback?: string): string {
    const twilio = !!this.config.twilio.accountSid;
    const provider = asked ?? fallback ?? (twilio ? 'twilio' : 'sandbox');
    if (provider === 'twilio' && !twilio)
      throw AppException.invalid(
        'provider',
        'provider twilio needs TWILIO_ACCOUNT_SID to be configured',
        'VALIDATION_ERROR',
      );
    return provider;
  }

  private async connection(
    workspaceId: string,
    id: string,
    field = 'connection_uuid',
  ): Promise<SipTrunkConnection> {
    const c = await this.trunks.findById(workspaceId, id.toLowerCase());
    if (!c)
      throw AppException.invalid(
        field,
        `${field} names no SIP trunk connection of this workspace`,
        'VALIDATION_ERROR',
      );
    return c;
  }

  private async view(workspaceId: string, t: SipTrunkConnection): Promise<SipTrunkResponse> {
    const number = await this.numbers.get(workspaceId, t.phoneNumberId);
    return SipTrunkResponse.of(t, number);
  }

  /** `POST /channels/sip-trunk/connections`: the trunk and its number (registered as external) in one transaction. */
  async createConnection(workspaceId: string, dto: CreateSipTrunkDto): Promise<SipTrunkResponse> {
    const provider = this.provider(dto.provider);
    const trunk = await this.unitOfWork.run(async (m) => {
      const number = await this.external.registerExternal(
        workspaceId,
        { number: dto.phone_number, provider },
        m,
      );
      const t = this.trunks.build(workspaceId, {
        name: dto.name,
        phoneNumberId: number.id,
        gateway: dto.gateway.toLowerCase(),
        secondaryGateway: dto.secondary_gateway?.toLowerCase() ?? null,
        username: dto.username ?? null,
        passwordCiphertext: dto.password ? this.secrets.encrypt(dto.password) : null,
        status: 'active',
      });
      await this.trunks.save(workspaceId, t, m);
      await this.trunkNumbers.attach(workspaceId, number.id, t.id, m);
      return t;
    });
    return this.view(workspaceId, (await this.trunks.findById(workspaceId, trunk.id))!);
  }

  async listConnections(workspaceId: string, query: PageQuery): Promise<Page<SipTrunkResponse>> {
    const [rows, total] = await this.trunks.findAndCount(workspaceId, {
      order: { createdAt: 'DESC', id: 'DESC' },
      ...skipTake(query),
    });
    const items: SipTrunkResponse[] = [];
    for (const t of rows) items.push(await this.view(workspaceId, t));
    return pageOf(items, total, query);
  }

  /**
   * Serves the number's calls with the agent. Served by another agent: 409, unless `force`, which takes it over.
   */
  private async bindCalls(
    workspaceId: string,
    agentId: string,
    numberId: string,
    force: boolean,
  ): Promise<void> {
    const current = await this.numbers.boundAgent(workspaceId, numberId, 'call');
    if (current && current !== agentId) {
      if (!force)
        throw AppException.conflict(
          'The number is already served by another agent (send force: true to move it)',
        );
      await this.channels.releaseChannel(workspaceId, numberId, 'call');
    }
    await this.channels.bind(workspaceId, agentId, numberId, ['call']);
  }

  /** `POST /agents/{uuid}/channels/call/sip-trunk`. */
  async bindAgent(workspaceId: string, agentId: string, dto: BindSipTrunkDto): Promise<AgentResponse> {
    await this.agents.get(workspaceId, agentId);
    const trunk = await this.connection(workspaceId, dto.connection_uuid);
    await this.bindCalls(workspaceId, agentId, trunk.phoneNumberId, dto.force ?? false);
    return this.agents.view(workspaceId, agentId);
  }

  private async numberViews(workspaceId: string, numbers: PhoneNumber[]): Promise<TrunkNumberResponse[]> {
    const [details, views] = await Promise.all([
      this.trunkNumbers.details(
        workspaceId,
        numbers.map((n) => n.id),
      ),
      this.numbers.views(workspaceId, numbers),
    ]);
    return views.map((view) => {
      const d = details.find((r) => r.phone_number_id === view.uuid);
      return {
        ...view,
        connection_uuid: d?.connection_id ?? null,
        agent_uuid: d?.agent_id ?? null,
      };
    });
  }

  private async numberView(workspaceId: string, id: string): Promise<TrunkNumberResponse> {
    const [view] = await this.numberViews(workspaceId, [await this.numbers.get(workspaceId, id)]);
    return view;
  }

  /** `GET /phone-numbers/trunks`: the workspace's external numbers, newest first. */
  async listNumbers(workspaceId: string, query: PageQuery): Promise<Page<TrunkNumberResponse>> {
    const page = await this.external.listBySource(workspaceId, 'external', query);
    return { ...page, items: await this.numberViews(workspaceId, page.items) };
  }

  /** `POST /phone-numbers/trunks`: an external number, carried by a trunk when one is named. */
  async createNumber(workspaceId: string, dto: CreateTrunkNumberDto): Promise<TrunkNumberResponse> {
    const trunk = dto.connection_uuid ? await this.connection(workspaceId, dto.connection_uuid) : null;
    const trunkProvider = trunk
      ? (await this.numbers.get(workspaceId, trunk.phoneNumberId)).provider
      : undefined;
    const provider = this.provider(dto.provider, trunkProvider);
    const number = await this.unitOfWork.run(async (m) => {
      const n = await this.external.registerExternal(
        workspaceId,
        { number: dto.number, provider, countryCode: dto.country_code?.toUpperCase() ?? null },
        m,
      );
      await this.trunkNumbers.attach(workspaceId, n.id, trunk?.id ?? null, m);
      return n;
    });
    return this.numberView(workspaceId, number.id);
  }

  /**
   * `PUT /phone-numbers/trunks/assign`: which trunk carries an external number (`connection_uuid: null` detaches
   * it) and, with `agent_uuid`, which agent serves its calls (another agent's: 409 unless `force`).
   */
  async assign(workspaceId: string, dto: AssignTrunkNumberDto): Promise<TrunkNumberResponse> {
    const id = dto.phone_number_uuid.toLowerCase();
    const number = await this.numbers.find(workspaceId, id);
    if (!number)
      throw AppException.invalid(
        'phone_number_uuid',
        'phone_number_uuid names no phone number of this workspace',
        'VALIDATION_ERROR',
      );
    if (number.source !== 'external')
      throw AppException.conflict(`The number ${number.number} is not external (source: ${number.source})`);
    if (
      dto.agent_uuid !== undefined &&
      !(await this.agents.exists(workspaceId, dto.agent_uuid.toLowerCase()))
    )
      throw AppException.invalid(
        'agent_uuid',
        'agent_uuid names no agent of this workspace',
        'VALIDATION_ERROR',
      );
    if (dto.connection_uuid !== undefined) {
      const trunk =
        dto.connection_uuid === null ? null : await this.connection(workspaceId, dto.connection_uuid);
      await this.unitOfWork.run((m) => this.trunkNumbers.attach(workspaceId, id, trunk?.id ?? null, m));
    }
    if (dto.agent_uuid !== undefined)
      await this.bindCalls(workspaceId, dto.agent_uuid.toLowerCase(), id, dto.force ?? false);
    return this.numberView(workspaceId, id);
  }
}
