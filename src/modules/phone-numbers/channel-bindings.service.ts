import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { PhoneNumberChannelSnapshotResponse } from './dto/phone-numbers.response';
import { DEFAULT_CAPABILITIES, NumberChannel, PhoneNumber } from './phone-number.entity';
import {
  BindingRow,
  MessengerPagesRepository,
  PhoneNumberBindingsRepository,
  PhoneNumbersRepository,
} from './phone-numbers.repository';
import { effectiveSettings } from './channel-settings';
import { WhatsappNumbersRepository } from './whatsapp-sender';

/**
 * Which agent serves each channel of a number (and each Messenger page), and the channel snapshot of a number.
 * Callers check that the agent exists (AgentsService) before binding.
 */
@Injectable()
export class ChannelBindingsService {
  constructor(
    private readonly numbers: PhoneNumbersRepository,
    private readonly bindings: PhoneNumberBindingsRepository,
    private readonly pages: MessengerPagesRepository,
    private readonly whatsapp: WhatsappNumbersRepository,
    private readonly unitOfWork: UnitOfWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Binds channels of a number to an agent, all or none. A channel already served by another agent is 409;
   * one already served by this agent stays as it is. `field` names the uuid in 422 answers.
   */
  async bind(
    workspaceId: WorkspaceId,
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
    // A real provider's number sends WhatsApp through Meta, by the sender's id: without one nothing could leave.
    if (
      channels.includes('whatsapp') &&
      number.provider !== 'sandbox' &&
      !(await this.whatsapp.exists(workspaceId, { id: number.id }))
    )
      throw AppException.conflict(
        `The number ${number.number} has no WhatsApp sender: set whatsapp.phone_number_id with ` +
          'PATCH /phone-numbers/{uuid} first',
      );
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
  async unbind(workspaceId: WorkspaceId, agentId: string, phoneNumberId: string): Promise<void> {
    const removed = await this.bindings.delete(workspaceId, { agentId, phoneNumberId });
    if (!removed) throw AppException.notFound('Phone number binding');
  }

  /** Unbinds the agent's WhatsApp messaging; the numbers stay on the account. */
  async unbindChannel(workspaceId: WorkspaceId, agentId: string, channel: NumberChannel): Promise<number> {
    return this.bindings.delete(workspaceId, { agentId, channel });
  }

  async bindMessenger(
    workspaceId: WorkspaceId,
    agentId: string,
    pageId: string,
    pageName?: string,
  ): Promise<void> {
    await this.unitOfWork.run(async (m) => {
      // A page has one owner across workspaces (inbound is routed by the page id alone); the refusal names nobody.
      await this.pages.lockPageId(pageId, m);
      if (await this.pages.ownedElsewhere(workspaceId, pageId, m))
        throw AppException.conflict('This page is connected to another workspace');
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
  async unbindMessenger(workspaceId: WorkspaceId, agentId: string): Promise<number> {
    const pages = await this.pages.find(workspaceId, { where: { agentId } });
    for (const p of pages) p.agentId = null;
    if (pages.length) await this.pages.save(workspaceId, pages);
    return pages.length;
  }

  /** Frees one channel of a number from whichever agent serves it (a forced re-binding). */
  async releaseChannel(
    workspaceId: WorkspaceId,
    phoneNumberId: string,
    channel: NumberChannel,
  ): Promise<number> {
    return this.bindings.delete(workspaceId, { phoneNumberId, channel });
  }

  async snapshotById(workspaceId: WorkspaceId, id: string): Promise<PhoneNumberChannelSnapshotResponse> {
    const n = await this.numbers.findById(workspaceId, id);
    if (!n) throw AppException.notFound('Phone number');
    return this.snapshot(workspaceId, n);
  }

  async snapshotByNumber(
    workspaceId: WorkspaceId,
    number: string,
  ): Promise<PhoneNumberChannelSnapshotResponse> {
    const n = await this.numbers.findOne(workspaceId, { number });
    if (!n) throw AppException.notFound('Phone number');
    return this.snapshot(workspaceId, n);
  }

  private async snapshot(
    workspaceId: WorkspaceId,
    n: PhoneNumber,
  ): Promise<PhoneNumberChannelSnapshotResponse> {
    const [rows, sender] = await Promise.all([
      this.bindings.withAgents(workspaceId, [n.id]),
      this.whatsapp.findById(workspaceId, n.id),
    ]);
    const caps = { ...DEFAULT_CAPABILITIES, ...n.capabilities };
    const settings = effectiveSettings(n, this.config.limits.maxConcurrentCalls);
    const bound = (channel: NumberChannel): BindingRow | undefined => rows.find((r) => r.channel === channel);
    const voice = (channel: 'call' | 'sms') => {
      const b = bound(channel);
      const on = channel === 'call' ? settings.voice.enabled : settings.sms.enabled;
      return {
        capable: caps[channel],
        enabled: caps[channel] && !!b && on,
        channel_limit: settings.voice.channel_limit,
        whitelisted_destinations: settings.voice.whitelisted_destinations,
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
        whatsapp: {
          bound: !!wa,
          agent_uuid: wa?.agent_id ?? null,
          agent_name: wa?.agent_name ?? null,
          phone_number_id: sender?.metaPhoneNumberId ?? null,
          waba_id: sender?.wabaId ?? null,
        },
        inbound: {
          enabled: caps.call && !!bound('call') && settings.inbound.enabled,
          channel_limit: settings.inbound.channel_limit,
        },
      },
    };
  }
}
