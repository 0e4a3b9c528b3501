import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { isUuid } from '@/common/validation/validators';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import {
  TemplateDeliveryStatus,
  TemplateSender,
  TemplateSendRequest,
} from '@/modules/outbound/engine/template-sender.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ProviderMessagesRepository } from './messaging.repositories';
import { TemplateSettingsRepository } from './templates.repositories';
import { WhatsappTemplateSends } from './whatsapp-template-sends';
import { WhatsappTemplatesService } from './whatsapp-templates.service';

const STATUSES: readonly TemplateDeliveryStatus[] = [
  'queued',
  'sent',
  'delivered',
  'read',
  'failed',
  'undelivered',
];

/**
 * WhatsApp templates for campaigns and `send_message` tasks, through the very path of `POST /whatsapp/template`:
 * the agent's WhatsApp number (sandbox or Meta), the do-not-call list, `APPROVED` only, setting tokens filled from
 * the contact and the task's variables. A refusal before sending is thrown as it is: the task fails with its code
 * (outbound's `failureOf`: `template_not_approved`, `validation_error:parameters`).
 */
@Injectable()
export class MessagingTemplateSender implements TemplateSender {
  constructor(
    private readonly sends: WhatsappTemplateSends,
    private readonly templates: WhatsappTemplatesService,
    private readonly settings: TemplateSettingsRepository,
    private readonly records: ProviderMessagesRepository,
    private readonly numbers: PhoneNumbersService,
  ) {}

  async assertSendable(
    workspaceId: WorkspaceId,
    templateSettingId: string,
    sender: { agentId: string; phoneNumberId: string | null },
  ): Promise<void> {
    const refuse = (message: string) =>
      AppException.invalid('template_setting_uuid', message, 'VALIDATION_ERROR');
    const setting = isUuid(templateSettingId)
      ? await this.settings.findById(workspaceId, templateSettingId)
      : null;
    if (!setting) throw refuse('template_setting_uuid names no template setting of this workspace');
    if (setting.status !== 'active' || !setting.templateId) throw refuse('The template setting is inactive');
    const template = await this.templates.get(workspaceId, setting.templateId).catch(() => null);
    if (!template) throw refuse('The template setting names no template');
    if (template.status !== 'APPROVED')
      throw refuse(`The template ${template.name} is ${template.status}, not APPROVED`);
    // As a send does: the message leaves from a number on the template's account (one with no known account too).
    const candidates = sender.phoneNumberId
      ? [sender.phoneNumberId]
      : (await this.numbers.boundNumbers(workspaceId, sender.agentId, 'whatsapp')).map((n) => n.id);
    for (const id of candidates) {
      const waba = (await this.numbers.whatsappSender(workspaceId, id))?.wabaId;
      if (!waba || waba === template.wabaId) return;
    }
    throw AppException.invalid(
      'phone_number_uuid',
      sender.phoneNumberId
        ? "phone_number_uuid is on another WhatsApp Business Account than the setting's template"
        : "The agent has no WhatsApp number on the setting's template's WhatsApp Business Account",
      'VALIDATION_ERROR',
    );
  }

  async send(workspaceId: WorkspaceId, request: TemplateSendRequest): Promise<{ messageId: string }> {
    const message = await this.sends.send(
      workspaceId,
      {
        agent_uuid: request.agentId,
        to: request.to,
        contact_uuid: request.contactId,
        phone_number_uuid: request.phoneNumberId ?? undefined,
        template_setting_uuid: request.templateSettingId ?? undefined,
        template_uuid: request.templateSettingId ? undefined : (request.templateId ?? undefined),
        parameters: request.templateSettingId ? undefined : strings(request.parameters),
        variables: request.variables,
      },
      request.link,
    );
    return { messageId: message.uuid };
  }

  async status(
    workspaceId: WorkspaceId,
    messageId: string,
  ): Promise<{ status: TemplateDeliveryStatus; at: Date } | null> {
    const row = await this.records.view(workspaceId, messageId);
    const status = row?.delivery_status as TemplateDeliveryStatus | null | undefined;
    if (!row || !status || !STATUSES.includes(status)) return null;
    return { status, at: row.status_updated_at ?? row.created_at };
  }
}

/** Task parameters as the template's `{"1": "..."}` strings. */
function strings(parameters: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(parameters).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}
