import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { within } from '@/common/concurrency/within';
import { SecretBox } from '@/common/crypto/secret-box';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AgentsService } from '@/modules/agents/agents.service';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type {
  CreatePbxConnectorDto,
  ListPbxConnectorsQuery,
  UpdatePbxConnectorDto,
} from './dto/pbx-connector.dto';
import { PbxConnectorResponse, PbxTestResponse } from './dto/sip.response';
import { agentInBody } from './agent-in-body';
import { readNormalizer } from './normalizer';
import { PbxConnector } from './sip.entities';
import { PbxConnectorsRepository } from './sip.repositories';

const DNS_TIMEOUT_MS = 2000;

/** PBX extension connectors: CRUD with sealed passwords, and the reachability test. */
@Injectable()
export class PbxConnectorsService {
  constructor(
    private readonly connectors: PbxConnectorsRepository,
    private readonly agents: AgentsService,
    private readonly numbers: PhoneNumbersService,
    private readonly secrets: SecretBox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private async get(workspaceId: WorkspaceId, id: string): Promise<PbxConnector> {
    const c = await this.connectors.findById(workspaceId, id);
    if (!c) throw AppException.notFound('PBX extension connector');
    return c;
  }

  async create(workspaceId: WorkspaceId, dto: CreatePbxConnectorDto): Promise<PbxConnectorResponse> {
    const normalizer = readNormalizer(dto.normalizer) ?? null;
    const agentId = await agentInBody(this.agents, workspaceId, dto.agent_uuid);
    const entity = this.connectors.build(workspaceId, {
      agentId,
      phoneNumber: dto.phone_number ?? null,
      registrarServer: dto.registrar_server.toLowerCase(),
      usernameExtension: dto.username_extension,
      pbxPasswordCiphertext: this.secrets.encrypt(dto.pbx_password),
      allowedIp: dto.allowed_ip ?? null,
      setupMode: dto.setup_mode ?? 'both',
      connectionType: dto.connection_type ?? 'udp',
      port: dto.port ?? 5060,
      authUsername: dto.auth_username ?? null,
      authPasswordCiphertext: dto.auth_password ? this.secrets.encrypt(dto.auth_password) : null,
      normalizer,
      status: 'active',
    });
    await this.connectors.save(workspaceId, entity);
    return this.read(workspaceId, entity.id);
  }

  async list(workspaceId: WorkspaceId, query: ListPbxConnectorsQuery): Promise<Page<PbxConnectorResponse>> {
    const [rows, total] = await this.connectors.findAndCount(workspaceId, {
      where: query.agent_uuid ? { agentId: query.agent_uuid.toLowerCase() } : {},
      order: { createdAt: 'DESC', id: 'DESC' },
      ...skipTake(query),
    });
    return pageOf(rows.map(PbxConnectorResponse.of), total, query);
  }

  async read(workspaceId: WorkspaceId, id: string): Promise<PbxConnectorResponse> {
    return PbxConnectorResponse.of(await this.get(workspaceId, id));
  }

  /** A partial change; a password sent replaces the stored one, `auth_password: null` removes it. */
  async update(
    workspaceId: WorkspaceId,
    id: string,
    dto: UpdatePbxConnectorDto,
  ): Promise<PbxConnectorResponse> {
    const c = await this.get(workspaceId, id);
    const normalizer = readNormalizer(dto.normalizer);
    if (dto.agent_uuid !== undefined) c.agentId = await agentInBody(this.agents, workspaceId, dto.agent_uuid);
    if (dto.phone_number !== undefined) c.phoneNumber = dto.phone_number;
    if (dto.registrar_server !== undefined) c.registrarServer = dto.registrar_server.toLowerCase();
    if (dto.username_extension !== undefined) c.usernameExtension = dto.username_extension;
    if (dto.pbx_password !== undefined) c.pbxPasswordCiphertext = this.secrets.encrypt(dto.pbx_password);
    if (dto.allowed_ip !== undefined) c.allowedIp = dto.allowed_ip;
    if (dto.setup_mode !== undefined) c.setupMode = dto.setup_mode;
    if (dto.connection_type !== undefined) c.connectionType = dto.connection_type;
    if (dto.port !== undefined) c.port = dto.port;
    if (dto.auth_username !== undefined) c.authUsername = dto.auth_username;
    if (dto.auth_password !== undefined)
      c.authPasswordCiphertext = dto.auth_password === null ? null : this.secrets.encrypt(dto.auth_password);
    if (normalizer !== undefined) c.normalizer = normalizer;
    await this.connectors.save(workspaceId, c);
    return this.read(workspaceId, id);
  }

  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    if (!(await this.connectors.delete(workspaceId, { id })))
      throw AppException.notFound('PBX extension connector');
  }

  /**
   * Whether the registrar can be reached. The provider is that of the connector's number, else of the agent's
   * call number, else the sandbox. Sandbox: always reachable. Twilio offers no way to send a SIP OPTIONS probe, so
   * the check is that the registrar's name resolves (an IP literal counts as reachable).
   */
  async test(workspaceId: WorkspaceId, id: string): Promise<PbxTestResponse> {
    const c = await this.get(workspaceId, id);
    const number =
      (c.phoneNumber ? await this.numbers.findByNumber(workspaceId, c.phoneNumber) : null) ??
      (await this.numbers.boundNumber(workspaceId, c.agentId, 'call'));
    const provider = number?.provider === 'twilio' && this.config.twilio.accountSid ? 'twilio' : 'sandbox';
    if (provider === 'sandbox') return { reachable: true, provider, method: 'sandbox' };
    return { reachable: await resolves(c.registrarServer), provider, method: 'dns' };
  }
}

async function resolves(host: string): Promise<boolean> {
  if (isIP(host)) return true;
  return within(
    lookup(host).then(
      () => true,
      () => false,
    ),
    DNS_TIMEOUT_MS,
    false,
  );
}
