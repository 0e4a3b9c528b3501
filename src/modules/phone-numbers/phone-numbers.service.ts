import { Inject, Injectable } from '@nestjs/common';
import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { Page, pageOf, PageQuery, skipTake } from '@/common/http/pagination';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { EntityManager } from 'typeorm';
import type { CreatePhoneNumberDto, UpdatePhoneNumberDto, WhatsappSenderDto } from './dto/phone-numbers.dto';
import type { PhoneNumberResponse } from './dto/phone-numbers.response';
import { DEFAULT_CAPABILITIES, NumberChannel, PhoneNumber } from './phone-number.entity';
import {
  MessengerPagesRepository,
  PhoneNumberBindingsRepository,
  PhoneNumbersRepository,
} from './phone-numbers.repository';
import { WhatsappNumber, WhatsappNumbersRepository } from './whatsapp-sender';
import {
  assertInboundEnabled,
  assertOutboundCall,
  assertSmsEnabled,
  effectiveSettings,
  inboundEnabled,
  mergeSettings,
  numberCallLimit,
} from './channel-settings';

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
    private readonly whatsapp: WhatsappNumbersRepository,
    private readonly unitOfWork: UnitOfWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The numbers as the API answers them, their WhatsApp senders read in one statement. */
  async views(workspaceId: WorkspaceId, numbers: PhoneNumber[]): Promise<PhoneNumberResponse[]> {
    const senders = await this.whatsapp.forNumbers(
      workspaceId,
      numbers.map((n) => n.id),
    );
    return numbers.map((n) => this.toResponse(n, senders.get(n.id) ?? null));
  }

  private toResponse(n: PhoneNumber, sender: WhatsappNumber | null): PhoneNumberResponse {
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
      monthly_fee: n.monthlyFee ?? null,
      whatsapp: sender ? { phone_number_id: sender.metaPhoneNumberId, waba_id: sender.wabaId } : null,
      channel_settings: effectiveSettings(n, this.config.limits.maxConcurrentCalls),
      created_at: n.createdAt.toISOString(),
      updated_at: n.updatedAt.toISOString(),
    };
  }

  async register(workspaceId: WorkspaceId, dto: CreatePhoneNumberDto): Promise<PhoneNumberResponse> {
    const parsed = parsePhoneNumberFromString(dto.number);
    if (dto.provider === 'twilio' && !(this.config.twilio.accountSid && this.config.twilio.authToken))
      throw AppException.invalid(
        'provider',
        'A twilio number needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN to be configured in this deployment',
        'VALIDATION_ERROR',
      );
    if (dto.whatsapp) this.checkWhatsapp(dto.provider ?? 'sandbox');
    else if (dto.capabilities?.whatsapp) this.requireSender(dto.provider ?? 'sandbox');
    const entity = this.numbers.build(workspaceId, {
      number: dto.number,
      provider: dto.provider ?? 'sandbox',
      status: 'active',
      countryCode: dto.country_code ?? parsed?.country ?? null,
      type: dto.type ?? null,
      capabilities: { ...DEFAULT_CAPABILITIES, ...(dto.capabilities ?? {}) },
      isExternal: false,
      source: 'registered',
      providerSid: null,
      monthlyFee: null,
      channelSettings: {},
    });
    if (dto.whatsapp) entity.capabilities.whatsapp = true;
    await this.unitOfWork.run(async (m) => {
      // A real provider routes inbound traffic by the number alone: one owner across workspaces (naming nobody).
      if (entity.provider !== 'sandbox') {
        await this.numbers.lockNumber(entity.number, m);
        if (await this.numbers.heldByAnotherWorkspace(workspaceId, entity.number, m))
          throw AppException.conflict('This number is already in use by another workspace');
      }
      await this.numbers.insertOwned(workspaceId, entity, m);
      if (dto.whatsapp) await this.setWhatsapp(workspaceId, entity.id, dto.whatsapp, m);
    });
    return this.read(workspaceId, entity.id);
  }

  /**
   * `PATCH /phone-numbers/{uuid}`: channel settings (merged: a key given replaces, null restores its default) and
   * the WhatsApp sender (enabling the number's whatsapp capability), in one transaction.
   */
  async update(
    workspaceId: WorkspaceId,
    id: string,
    dto: UpdatePhoneNumberDto,
  ): Promise<PhoneNumberResponse> {
    await this.get(workspaceId, id);
    const settings = dto.channel_settings;
    if (settings?.voice?.whitelisted_destinations)
      settings.voice.whitelisted_destinations.forEach((code, i) => {
        if (!isSupportedCountry(code))
          throw AppException.invalid(
            `channel_settings.voice.whitelisted_destinations.${i}`,
            `channel_settings.voice.whitelisted_destinations.${i} (${code}) is not a country with phone numbers`,
          );
      });
    if (!settings && !dto.whatsapp) return this.read(workspaceId, id);
    await this.unitOfWork.run(async (m) => {
      const locked = await this.numbers.lockById(workspaceId, id, m);
      if (!locked) throw AppException.notFound('Phone number');
      if (settings)
        locked.channelSettings = mergeSettings(
          locked.channelSettings ?? {},
          settings as unknown as Record<string, unknown>,
        );
      if (dto.whatsapp)
        locked.capabilities = { ...DEFAULT_CAPABILITIES, ...locked.capabilities, whatsapp: true };
      await this.numbers.save(workspaceId, locked, m);
      if (dto.whatsapp) await this.setWhatsapp(workspaceId, id, await this.patchedSender(locked, dto, m), m);
    });
    return this.read(workspaceId, id);
  }

  /**
   * The sender a PATCH leaves: the keys sent over the stored ones (`waba_id: null` clears it). Enabling WhatsApp
   * (no sender yet) needs `phone_number_id`: 422 naming it, before what the deployment lacks (checkWhatsapp).
   */
  private async patchedSender(
    number: PhoneNumber,
    dto: UpdatePhoneNumberDto,
    m: EntityManager,
  ): Promise<WhatsappSenderDto> {
    const stored = await this.whatsapp.findById(number.workspaceId, number.id, m);
    const phoneNumberId = dto.whatsapp?.phone_number_id ?? stored?.metaPhoneNumberId;
    if (!phoneNumberId) this.requireSender();
    this.checkWhatsapp(number.provider);
    const wabaId = dto.whatsapp?.waba_id === undefined ? stored?.wabaId : dto.whatsapp.waba_id;
    return { phone_number_id: phoneNumberId!, waba_id: wabaId ?? undefined };
  }

  /**
   * WhatsApp asked for without Meta's id of the number: 422 on `whatsapp.phone_number_id` (a real provider's number
   * sends through Meta by that id; a sandbox number needs it only when a sender is set on it).
   */
  private requireSender(provider?: string): void {
    if (provider === 'sandbox') return;
    throw AppException.invalid(
      'whatsapp.phone_number_id',
      `WhatsApp on ${provider ? `a ${provider} number` : 'this number'} needs whatsapp.phone_number_id ` +
        "(Meta's id of the number)",
      'VALIDATION_ERROR',
    );
  }

  /** A real number's WhatsApp needs the Cloud API token; sandbox numbers need nothing. */
  private checkWhatsapp(provider: string): void {
    if (provider !== 'sandbox' && !this.config.meta.accessToken)
      throw AppException.invalid(
        'whatsapp',
        'WhatsApp on a non-sandbox number needs META_ACCESS_TOKEN to be configured',
        'VALIDATION_ERROR',
      );
  }

  private async setWhatsapp(
    workspaceId: WorkspaceId,
    numberId: string,
    config: WhatsappSenderDto,
    m: EntityManager,
  ): Promise<void> {
    // A WABA has one owner across workspaces (its templates are managed at Meta by its id); the refusal names nobody.
    if (config.waba_id) {
      await this.whatsapp.lockWaba(config.waba_id, m);
      if (await this.whatsapp.wabaOwnedElsewhere(workspaceId, config.waba_id, m))
        throw new AppException(
          'CONFLICT',
          'This WhatsApp Business Account is connected to another workspace',
          {
            field: 'whatsapp.waba_id',
          },
        );
    }
    const done = await this.whatsapp.upsert(
      workspaceId,
      numberId,
      { metaPhoneNumberId: config.phone_number_id, wabaId: config.waba_id ?? null },
      m,
    );
    if (!done) throw AppException.conflict('This WhatsApp phone_number_id is already used by another number');
  }

  /** The number's WhatsApp sender (Meta ids), or null when WhatsApp is not set up on it. */
  whatsappSender(workspaceId: WorkspaceId, numberId: string) {
    return this.whatsapp.findById(workspaceId, numberId);
  }

  /** Inbound routing: the number a provider addressed, found across workspaces. */
  routeNumber(provider: string, number: string) {
    return this.numbers.byProviderNumber(provider, number);
  }

  /** Inbound routing: the workspace and agent of a bound Messenger (or Instagram) page. */
  routePage(pageId: string) {
    return this.pages.boundPage(pageId);
  }

  /** The workspace's WhatsApp senders (for their WABAs). */
  whatsappSenders(workspaceId: WorkspaceId) {
    return this.whatsapp.find(workspaceId, { order: { createdAt: 'ASC' } });
  }

  async list(workspaceId: WorkspaceId, query: PageQuery): Promise<Page<PhoneNumberResponse>> {
    const [rows, total] = await this.numbers.findAndCount(workspaceId, {
      order: { createdAt: 'DESC', id: 'DESC' },
      ...skipTake(query),
    });
    return pageOf(await this.views(workspaceId, rows), total, query);
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<PhoneNumber> {
    const n = await this.numbers.findById(workspaceId, id);
    if (!n) throw AppException.notFound('Phone number');
    return n;
  }

  /** The number, or null: for calls, whose body references answer 422. */
  find(workspaceId: WorkspaceId, id: string): Promise<PhoneNumber | null> {
    return this.numbers.findById(workspaceId, id);
  }

  /** The active number of a provider named by its inbound hook, in whichever workspace holds it. */
  async findProviderNumber(number: string, provider: string): Promise<PhoneNumber | null> {
    const owner = await this.numbers.byProviderNumber(provider, number);
    return owner ? this.numbers.findById(owner.workspaceId, owner.id) : null;
  }

  findByNumber(workspaceId: WorkspaceId, number: string): Promise<PhoneNumber | null> {
    return this.numbers.findOne(workspaceId, { number });
  }

  /** The number whose `channel` the agent serves (the oldest binding when several), or null. */
  /** The agent's numbers bound to the channel, the first bound first. */
  async boundNumbers(
    workspaceId: WorkspaceId,
    agentId: string,
    channel: NumberChannel,
  ): Promise<PhoneNumber[]> {
    const bindings = await this.bindings.find(workspaceId, {
      where: { agentId, channel },
      order: { createdAt: 'ASC' },
    });
    const numbers = await Promise.all(
      bindings.map((b) => this.numbers.findById(workspaceId, b.phoneNumberId)),
    );
    return numbers.filter((n): n is PhoneNumber => !!n);
  }

  async boundNumber(
    workspaceId: WorkspaceId,
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
    workspaceId: WorkspaceId,
    phoneNumberId: string,
    channel: NumberChannel,
  ): Promise<string | null> {
    const binding = await this.bindings.findOne(workspaceId, { phoneNumberId, channel });
    return binding?.agentId ?? null;
  }

  async read(workspaceId: WorkspaceId, id: string): Promise<PhoneNumberResponse> {
    const [view] = await this.views(workspaceId, [await this.get(workspaceId, id)]);
    return view;
  }

  /** Removes the number and every binding of it. */
  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    if (!(await this.numbers.delete(workspaceId, { id }))) throw AppException.notFound('Phone number');
  }

  /** 409 unless the number may call `to` (voice enabled, destination whitelisted): `POST /call`. */
  assertCanCall(number: PhoneNumber, to: string): void {
    assertOutboundCall(number, to);
  }

  /** 409 when the number's SMS is switched off; other channels pass. */
  assertCanSend(number: PhoneNumber, channel: NumberChannel): void {
    if (channel === 'sms') assertSmsEnabled(number);
  }

  /** Whether the number takes inbound calls (`channel_settings.inbound.enabled`). */
  takesInbound(number: PhoneNumber): boolean {
    return inboundEnabled(number);
  }

  /** 409 when the number takes no inbound calls. */
  assertTakesInbound(number: PhoneNumber): void {
    assertInboundEnabled(number);
  }

  /** The number's live-call limit for a new call of that direction; undefined: the workspace's. */
  callLimit(number: PhoneNumber, direction: 'Inbound' | 'Outbound'): number | undefined {
    return numberCallLimit(number, direction);
  }
}
