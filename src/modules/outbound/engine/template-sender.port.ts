import type { EntityManager } from 'typeorm';
import { declarePort } from '@/modules/ports';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/**
 * WhatsApp template sending, implemented by the messaging module; PortBindingsModule binds it. Campaigns of channel
 * `whatsapp` and tasks of type `send_message` go through it.
 */
export const OUTBOUND_TEMPLATE_SENDER = declarePort('OUTBOUND_TEMPLATE_SENDER', 'outbound');

export interface TemplateSendRequest {
  agentId: string;
  contactId: string;
  to: string;
  phoneNumberId: string | null;
  /** A template setting (campaigns) or a template (tasks may name either). */
  templateSettingId: string | null;
  templateId: string | null;
  parameters: Record<string, unknown>;
  variables: Record<string, string>;
  taskId: string;
  campaignId: string | null;
  /**
   * Runs in the transaction that stores the message, once its id is known (the task's start, under the task's
   * lock); when it throws, nothing is stored or sent.
   */
  link?: (tx: EntityManager, messageId: string) => Promise<void>;
}

/** A message's delivery status, as §12 names them. */
export type TemplateDeliveryStatus = 'queued' | 'sent' | 'delivered' | 'read' | 'failed' | 'undelivered';

export interface TemplateSender {
  /**
   * Throws 422 VALIDATION_ERROR naming `template_setting_uuid` unless the setting is active and its template
   * `APPROVED`, and naming `phone_number_uuid` when the sender (the number named, else the agent's WhatsApp numbers)
   * has no number on the template's WhatsApp Business Account.
   */
  assertSendable(
    workspaceId: WorkspaceId,
    templateSettingId: string,
    sender: { agentId: string; phoneNumberId: string | null },
  ): Promise<void>;
  /** Sends one rendered template; throws an AppException when refused before sending (the task fails). */
  send(workspaceId: WorkspaceId, request: TemplateSendRequest): Promise<{ messageId: string }>;
  /** The message's current delivery status and when it last changed. */
  status(
    workspaceId: WorkspaceId,
    messageId: string,
  ): Promise<{ status: TemplateDeliveryStatus; at: Date } | null>;
}
