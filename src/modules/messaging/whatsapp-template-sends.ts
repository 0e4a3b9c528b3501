import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, PageQuery, skipTake } from '@/common/http/pagination';
import { assertPhoneNumber } from '@/common/validation/validators';
import { ContactsService } from '@/modules/contacts/contacts.service';
import type { SendTemplateDto, TemplateSettingDto } from './dto/whatsapp.dto';
import type { ProviderMessageResponse } from '@/modules/conversations/dto/message-view.response';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { TemplateSettingResponse } from './dto/whatsapp.response';
import type { WhatsappTemplate, WhatsappTemplateSetting } from './messaging.entities';
import { OutboundMessagesService, OutboundRequest } from './outbound-messages.service';
import { checkBodyParams, fillBody, renderTokens, SAMPLE_CONTEXT, TokenContext } from './template-text';
import { TemplateSettingsRepository } from './templates.repositories';
import { WhatsappTemplatesService } from './whatsapp-templates.service';

/** Template settings (parameters as `{{contact.*}}`, `{{custom.*}}`, `{{variables.*}}` tokens) and template sends. */
@Injectable()
export class WhatsappTemplateSends {
  constructor(
    private readonly settings: TemplateSettingsRepository,
    private readonly templates: WhatsappTemplatesService,
    private readonly contacts: ContactsService,
    private readonly outbound: OutboundMessagesService,
  ) {}

  async listSettings(workspaceId: WorkspaceId, q: PageQuery): Promise<Page<TemplateSettingResponse>> {
    const [rows, total] = await this.settings.findAndCount(workspaceId, {
      order: { createdAt: 'DESC', id: 'DESC' },
      ...skipTake(q),
    });
    return pageOf(await Promise.all(rows.map((s) => this.view(workspaceId, s))), total, q);
  }

  async getSetting(workspaceId: WorkspaceId, id: string): Promise<WhatsappTemplateSetting> {
    const s = await this.settings.findById(workspaceId, id);
    if (!s) throw AppException.notFound('Template setting');
    return s;
  }

  async readSetting(workspaceId: WorkspaceId, id: string): Promise<TemplateSettingResponse> {
    return this.view(workspaceId, await this.getSetting(workspaceId, id));
  }

  async saveSetting(
    workspaceId: WorkspaceId,
    dto: TemplateSettingDto,
    id?: string,
  ): Promise<TemplateSettingResponse> {
    const existing = id ? await this.getSetting(workspaceId, id) : null;
    const template = await this.templates.get(workspaceId, dto.template_uuid).catch(() => {
      throw AppException.invalid(
        'template_uuid',
        'template_uuid names no template of this workspace',
        'VALIDATION_ERROR',
      );
    });
    checkBodyParams(dto.params.body, template.parameterCount);
    const params = { body: dto.params.body, header: dto.params.header ?? null };
    const setting =
      existing ??
      this.settings.build(workspaceId, { templateId: template.id, params, status: dto.status ?? 'active' });
    Object.assign(setting, { templateId: template.id, params, status: dto.status ?? 'active' });
    await this.settings.save(workspaceId, setting);
    return this.view(workspaceId, (await this.settings.findById(workspaceId, setting.id))!);
  }

  async removeSetting(workspaceId: WorkspaceId, id: string): Promise<void> {
    if (!(await this.settings.delete(workspaceId, { id }))) throw AppException.notFound('Template setting');
  }

  private async view(workspaceId: WorkspaceId, s: WhatsappTemplateSetting): Promise<TemplateSettingResponse> {
    const t = s.templateId ? await this.templates.get(workspaceId, s.templateId).catch(() => null) : null;
    const values = t
      ? Array.from({ length: t.parameterCount }, (_, i) =>
          renderTokens(s.params.body[String(i + 1)] ?? '', SAMPLE_CONTEXT),
        )
      : [];
    return TemplateSettingResponse.of(s, t, t ? fillBody(t.content, values) : '');
  }

  /** `POST /whatsapp/template`: an APPROVED template to a number, outside the 24-hour window too. */
  async send(
    workspaceId: WorkspaceId,
    dto: SendTemplateDto,
    /** More writes in the message's transaction (see `OutboundRequest.link`). */
    link?: OutboundRequest['link'],
  ): Promise<ProviderMessageResponse> {
    const agentId = dto.agent_uuid ?? dto.agentId;
    const to = dto.to ?? dto.phoneNumber;
    if (!agentId)
      throw AppException.invalid('agent_uuid', 'agent_uuid should not be empty', 'VALIDATION_ERROR');
    if (!to) throw AppException.invalid('to', 'to should not be empty', 'VALIDATION_ERROR');
    assertPhoneNumber('to', to);
    const { template, setting } = await this.resolve(workspaceId, dto);
    if (template.status !== 'APPROVED')
      throw new AppException(
        'TEMPLATE_NOT_APPROVED',
        `The template ${template.name} is ${template.status}, not APPROVED`,
      );
    const values = setting
      ? checkBodyParams(setting.params.body, template.parameterCount).map((v) => v)
      : this.parameters(dto.parameters, template.parameterCount);
    const rendered = setting ? await this.renderFor(workspaceId, dto, to, values) : values;
    const header = dto.header ?? (setting?.params.header as SendTemplateDto['header']) ?? null;
    return this.outbound.send(workspaceId, {
      agentId,
      channel: 'whatsapp',
      to,
      content: fillBody(template.content, rendered),
      phoneNumberId: dto.phone_number_uuid,
      contactId: dto.contact_uuid,
      messageType: 'template',
      wabaId: template.wabaId,
      template: {
        ref: {
          uuid: template.id,
          name: template.name,
          language: template.language,
          parameters: Object.fromEntries(rendered.map((v, i) => [String(i + 1), v])),
        },
        payload: { name: template.name, language: template.language, parameters: rendered, header },
      },
      link,
    });
  }

  private async resolve(
    workspaceId: WorkspaceId,
    dto: SendTemplateDto,
  ): Promise<{ template: WhatsappTemplate; setting: WhatsappTemplateSetting | null }> {
    if (dto.template_setting_uuid) {
      const setting = await this.settings.findById(workspaceId, dto.template_setting_uuid);
      if (!setting || !setting.templateId || setting.status !== 'active')
        throw AppException.invalid(
          'template_setting_uuid',
          'template_setting_uuid names no active template setting',
          'VALIDATION_ERROR',
        );
      return { template: await this.templates.get(workspaceId, setting.templateId), setting };
    }
    const id = dto.template_uuid ?? dto.templateId;
    if (!id)
      throw AppException.invalid(
        'template_uuid',
        'template_uuid or template_setting_uuid is required',
        'VALIDATION_ERROR',
      );
    const template = await this.templates.get(workspaceId, id).catch(() => {
      throw AppException.invalid(
        'template_uuid',
        'template_uuid names no template of this workspace',
        'VALIDATION_ERROR',
      );
    });
    return { template, setting: null };
  }

  private parameters(given: Record<string, string> | undefined, count: number): string[] {
    const values = Object.entries(given ?? {});
    if (
      values.length !== count ||
      values.some(([k, v]) => !/^\d+$/.test(k) || Number(k) < 1 || Number(k) > count || typeof v !== 'string')
    )
      throw AppException.invalid(
        'parameters',
        `parameters must hold exactly ${count} values keyed "1".."${count}"`,
        'VALIDATION_ERROR',
      );
    return Array.from({ length: count }, (_, i) => given![String(i + 1)]);
  }

  /** A setting's tokens filled from the contact (by `contact_uuid`, else the recipient's number) and variables. */
  private async renderFor(
    workspaceId: WorkspaceId,
    dto: SendTemplateDto,
    to: string,
    values: string[],
  ): Promise<string[]> {
    const contact = dto.contact_uuid
      ? await this.contacts.find(workspaceId, dto.contact_uuid)
      : await this.contacts.findByPhone(workspaceId, to);
    const view = contact ? (this.contacts.toResponse(contact) as unknown as Record<string, unknown>) : {};
    const ctx: TokenContext = {
      contact: view,
      custom: (view.custom_fields as Record<string, unknown> | undefined) ?? {},
      variables: dto.variables ?? {},
    };
    return values.map((v) => renderTokens(v, ctx));
  }
}
