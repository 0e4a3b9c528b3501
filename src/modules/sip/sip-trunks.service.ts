import { Inject, Injectable } from '@nestjs/common';
import { SecretBox } from '@/common/crypto/secret-box';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, PageQuery, skipTake } from '@/common/http/pagination';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AgentsService } from '@/modules/agents/agents.service';
import type { PhoneNumber } from '@/modules/phone-numbers/phone-number.entity';
import { ChannelBindingsService } from '@/modules/phone-numbers/channel-bindings.service';
import { ExternalNumbersService } from '@/modules/phone-numbers/external-numbers.service';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import type { EntityManager } from 'typeorm';
import type { PhoneNumberResponse } from '@/modules/phone-numbers/dto/phone-numbers.response';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type {
  AssignTrunkNumberDto,
  BindSipTrunkDto,
  CreateSipTrunkDto,
  CreateTrunkNumberDto,
  TrunkDirection,
  TrunkNumberSipDto,
} from './dto/sip-trunk.dto';
import { SipTrunkBindingResponse, SipTrunkResponse, TrunkNumberResponse } from './dto/sip.response';
import { agentInBody } from './agent-in-body';
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
    workspaceId: WorkspaceId,
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

  private async view(workspaceId: WorkspaceId, t: SipTrunkConnection): Promise<SipTrunkResponse> {
    const number = await this.numbers.get(workspaceId, t.phoneNumberId);
    return SipTrunkResponse.of(t, number);
  }

  /** `POST /channels/sip-trunk/connections`: the trunk and its number (registered as external) in one transaction. */
  async createConnection(workspaceId: WorkspaceId, dto: CreateSipTrunkDto): Promise<SipTrunkResponse> {
    const provider = this.provider(dto.provider);
    const trunk = await this.unitOfWork.run(async (m) => {
      const number = await this.external.registerExternal(
        workspaceId,
        { number: dto.phone_number, provider },
        m,
      );
      return this.carryOn(workspaceId, number.id, dto, m);
    });
    return this.view(workspaceId, (await this.trunks.findById(workspaceId, trunk.id))!);
  }

  /** A new trunk carrying the number (its password sealed), in the caller's transaction. */
  private async carryOn(
    workspaceId: WorkspaceId,
    numberId: string,
    dto: Pick<CreateSipTrunkDto, 'name' | 'gateway' | 'secondary_gateway' | 'username' | 'password'>,
    m: EntityManager,
  ): Promise<SipTrunkConnection> {
    const t = this.trunks.build(workspaceId, {
      name: dto.name,
      phoneNumberId: numberId,
      gateway: dto.gateway.toLowerCase(),
      secondaryGateway: dto.secondary_gateway?.toLowerCase() ?? null,
      username: dto.username ?? null,
      passwordCiphertext: dto.password ? this.secrets.encrypt(dto.password) : null,
      status: 'active',
    });
    await this.trunks.save(workspaceId, t, m);
    await this.trunkNumbers.attach(workspaceId, numberId, t.id, m);
    return t;
  }

  async listConnections(workspaceId: WorkspaceId, query: PageQuery): Promise<Page<SipTrunkResponse>> {
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
    workspaceId: WorkspaceId,
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

  /** `POST /agents/{uuid}/channels/call/sip-trunk`: answers the binding made. */
  async bindAgent(
    workspaceId: WorkspaceId,
    agentId: string,
    dto: BindSipTrunkDto,
  ): Promise<SipTrunkBindingResponse> {
    await this.agents.get(workspaceId, agentId);
    const trunk = await this.connection(workspaceId, dto.connection_uuid);
    await this.bindCalls(workspaceId, agentId, trunk.phoneNumberId, dto.force ?? false);
    const number = await this.numbers.get(workspaceId, trunk.phoneNumberId);
    return { agent_uuid: agentId, connection_uuid: trunk.id, phone_number: number.number };
  }

  private async numberViews(
    workspaceId: WorkspaceId,
    numbers: PhoneNumber[],
  ): Promise<TrunkNumberResponse[]> {
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
        direction: directionOf(view),
      };
    });
  }

  private async numberView(workspaceId: WorkspaceId, id: string): Promise<TrunkNumberResponse> {
    const [view] = await this.numberViews(workspaceId, [await this.numbers.get(workspaceId, id)]);
    return view;
  }

  /** `GET /phone-numbers/trunks`: the workspace's external numbers, newest first. */
  async listNumbers(workspaceId: WorkspaceId, query: PageQuery): Promise<Page<TrunkNumberResponse>> {
    const page = await this.external.listBySource(workspaceId, 'external', query);
    return { ...page, items: await this.numberViews(workspaceId, page.items) };
  }

  /**
   * `POST /phone-numbers/trunks`: an external number, carried by a trunk when one is named (`connection_uuid` or
   * `sip.connection_uuid`) or described (`sip.gateway`: a trunk of its own), its calls served by `agent_uuid` and
   * taken as `direction` says. The source product's names are aliases: both spellings differing is 422.
   */
  async createNumber(workspaceId: WorkspaceId, dto: CreateTrunkNumberDto): Promise<TrunkNumberResponse> {
    const e164 = alias('number', dto.number, 'phone_number', dto.phone_number);
    if (!e164)
      throw AppException.invalid(
        'number',
        'number is required (or its alias phone_number)',
        'VALIDATION_ERROR',
      );
    const { connectionId, newTrunk } = trunkOf(dto.connection_uuid, dto.sip);
    const agentId =
      dto.agent_uuid === undefined ? undefined : await agentInBody(this.agents, workspaceId, dto.agent_uuid);
    const trunk = connectionId
      ? await this.connection(workspaceId, connectionId, connectionField(dto))
      : null;
    const trunkProvider = trunk
      ? (await this.numbers.get(workspaceId, trunk.phoneNumberId)).provider
      : undefined;
    const provider = this.provider(dto.provider, trunkProvider);
    const number = await this.unitOfWork.run(async (m) => {
      const n = await this.external.registerExternal(
        workspaceId,
        { number: e164, provider, countryCode: dto.country_code?.toUpperCase() ?? null },
        m,
      );
      if (newTrunk) await this.carryOn(workspaceId, n.id, { ...newTrunk, name: newTrunk.name ?? e164 }, m);
      else await this.trunkNumbers.attach(workspaceId, n.id, trunk?.id ?? null, m);
      return n;
    });
    await this.settle(workspaceId, number.id, dto.direction, agentId, dto.force);
    return this.numberView(workspaceId, number.id);
  }

  /**
   * `PUT /phone-numbers/trunks/assign`: which trunk carries an external number (`connection_uuid: null` detaches
   * it; `sip.gateway` gives it a trunk of its own), which agent serves its calls (another agent's: 409 unless
   * `force`) and which calls it takes (`direction`). The number is `phone_number_uuid` or, by its E.164 value,
   * `phone_number`; both naming different numbers is 422.
   */
  async assign(workspaceId: WorkspaceId, dto: AssignTrunkNumberDto): Promise<TrunkNumberResponse> {
    const number = await this.assigned(workspaceId, dto);
    if (number.source !== 'external')
      throw AppException.conflict(`The number ${number.number} is not external (source: ${number.source})`);
    const id = number.id;
    const agentId =
      dto.agent_uuid === undefined ? undefined : await agentInBody(this.agents, workspaceId, dto.agent_uuid);
    const { connectionId, newTrunk } = trunkOf(dto.connection_uuid, dto.sip);
    if (newTrunk)
      await this.unitOfWork.run((m) =>
        this.carryOn(workspaceId, id, { ...newTrunk, name: newTrunk.name ?? number.number }, m),
      );
    else if (connectionId !== undefined) {
      const trunk =
        connectionId === null ? null : await this.connection(workspaceId, connectionId, connectionField(dto));
      await this.unitOfWork.run((m) => this.trunkNumbers.attach(workspaceId, id, trunk?.id ?? null, m));
    }
    await this.settle(workspaceId, id, dto.direction, agentId, dto.force);
    return this.numberView(workspaceId, id);
  }

  /** The number an assignment names: by uuid, by its E.164 value, or both when they agree (else 422). */
  private async assigned(workspaceId: WorkspaceId, dto: AssignTrunkNumberDto): Promise<PhoneNumber> {
    const byUuid = dto.phone_number_uuid
      ? await this.numbers.find(workspaceId, dto.phone_number_uuid.toLowerCase())
      : null;
    if (dto.phone_number_uuid && !byUuid)
      throw AppException.invalid(
        'phone_number_uuid',
        'phone_number_uuid names no phone number of this workspace',
        'VALIDATION_ERROR',
      );
    if (dto.phone_number === undefined) {
      if (!byUuid)
        throw AppException.invalid(
          'phone_number_uuid',
          'phone_number_uuid is required (or phone_number, the number in E.164)',
          'VALIDATION_ERROR',
        );
      return byUuid;
    }
    const byNumber = await this.numbers.findByNumber(workspaceId, dto.phone_number);
    if (!byNumber)
      throw AppException.invalid(
        'phone_number',
        'phone_number names no phone number of this workspace',
        'VALIDATION_ERROR',
      );
    if (byUuid && byUuid.id !== byNumber.id)
      throw AppException.invalid(
        'phone_number',
        'phone_number and phone_number_uuid name different numbers: send one of them',
        'VALIDATION_ERROR',
      );
    return byNumber;
  }

  /** Which calls the number takes (as its channel settings) and the agent serving them, when given. */
  private async settle(
    workspaceId: WorkspaceId,
    id: string,
    direction: TrunkDirection | undefined,
    agentId: string | undefined,
    force: boolean | undefined,
  ): Promise<void> {
    if (direction)
      await this.numbers.update(workspaceId, id, {
        channel_settings: {
          voice: { enabled: direction !== 'inbound' },
          inbound: { enabled: direction !== 'outbound' },
        },
      });
    if (agentId !== undefined) await this.bindCalls(workspaceId, agentId, id, force ?? false);
  }
}

/** One value given under today's name and the source product's: either, or both when equal (else 422). */
function alias<T>(
  name: string,
  value: T | undefined,
  sourceName: string,
  sourceValue: T | undefined,
): T | undefined {
  if (value !== undefined && sourceValue !== undefined && value !== sourceValue)
    throw AppException.invalid(
      sourceName,
      `${sourceName} is an alias of ${name} and differs from it: send one of them`,
      'VALIDATION_ERROR',
    );
  return value !== undefined ? value : sourceValue;
}

/** The field naming the trunk in a body: the source product's `sip.connection_uuid` when that is the one sent. */
function connectionField(dto: { connection_uuid?: string | null }): string {
  return dto.connection_uuid === undefined ? 'sip.connection_uuid' : 'connection_uuid';
}

/**
 * The trunk a trunk-number body names (`connection_uuid` or its alias `sip.connection_uuid`; undefined: none named)
 * or describes (`sip.gateway` and the rest: a new trunk). Both at once, or trunk settings without a gateway: 422.
 */
function trunkOf(
  connectionUuid: string | null | undefined,
  sip: TrunkNumberSipDto | undefined,
): { connectionId: string | null | undefined; newTrunk: (TrunkNumberSipDto & { gateway: string }) | null } {
  const { connection_uuid: sipConnection, ...settings } = sip ?? {};
  const connectionId = alias(
    'connection_uuid',
    connectionUuid?.toLowerCase() ?? connectionUuid,
    'sip.connection_uuid',
    sipConnection?.toLowerCase(),
  );
  const described = Object.values(settings).some((v) => v !== undefined && v !== null);
  if (!described) return { connectionId, newTrunk: null };
  if (connectionId)
    throw AppException.invalid(
      'sip.gateway',
      'sip.gateway describes a new trunk while a trunk is named by connection_uuid: send one of them',
      'VALIDATION_ERROR',
    );
  if (!settings.gateway)
    throw AppException.invalid(
      'sip.gateway',
      'sip.gateway is required to give the number a trunk of its own',
      'VALIDATION_ERROR',
    );
  return { connectionId, newTrunk: { ...settings, gateway: settings.gateway } };
}

/** Which calls a number takes, from its channel settings: outbound (voice), inbound, both, or null for neither. */
function directionOf(view: PhoneNumberResponse): TrunkDirection | null {
  const out = view.channel_settings.voice.enabled;
  const inbound = view.channel_settings.inbound.enabled;
  return out && inbound ? 'both' : out ? 'outbound' : inbound ? 'inbound' : null;
}
