import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { Channel } from '@/modules/conversations/channels';
import type { MessageTemplateRef } from '@/modules/conversations/dto/message-view.response';
import type { DeliveryStatus, ProviderFailure } from '@/providers/messaging/messaging.port';

export type TemplateRef = MessageTemplateRef;

/** The provider side of a message (its id is the message's): addresses, provider id, delivery status. */
@Entity('provider_messages')
export class ProviderMessage extends WorkspaceOwnedEntity {
  @Column('uuid') conversationId!: string;
  @Column('uuid', { nullable: true }) phoneNumberId!: string | null;
  @Column('varchar', { length: 20 }) channel!: Channel;
  @Column('varchar', { length: 10 }) direction!: 'inbound' | 'outbound';
  @Column('varchar', { length: 64 }) fromAddress!: string;
  @Column('varchar', { length: 64 }) toAddress!: string;
  @Column('varchar', { length: 20 }) provider!: string;
  @Column('varchar', { length: 255, nullable: true }) providerMessageId!: string | null;
  @Column('varchar', { length: 12 }) deliveryStatus!: DeliveryStatus;
  @Column('jsonb', { nullable: true }) error!: ProviderFailure | null;
  @Column({ type: 'timestamptz', precision: 3 }) statusUpdatedAt!: Date;
  @Column('jsonb', { nullable: true }) template!: TemplateRef | null;
  @Column('jsonb', { default: {} }) metadata!: Record<string, unknown>;
  @Column('boolean', { default: false }) isSimulation!: boolean;
}

/** A messaging conversation's line: the number (or page) and the customer's address; who answers it. */
@Entity('messaging_threads')
export class MessagingThread extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 20 }) channel!: Channel;
  @Column('uuid', { nullable: true }) phoneNumberId!: string | null;
  @Column('varchar', { length: 100, nullable: true }) pageId!: string | null;
  @Column('varchar', { length: 64 }) customerAddress!: string;
  @Column('varchar', { length: 10, default: 'AI' }) handledBy!: 'AI' | 'Human';
}

export const TEMPLATE_STATUSES = [
  'APPROVED',
  'PENDING',
  'REJECTED',
  'PAUSED',
  'DISABLED',
  'DELETED',
] as const;

/**
 * Meta's template statuses (listed by the Graph API, or the `event` of `message_template_status_update`) in ours:
 * a template under review again is `PENDING`, one on its way out `DELETED`, one reinstated or only flagged for its
 * quality (still sendable) `APPROVED`, an archived one `DISABLED`. Null for any other value (`LOCKED`,
 * `LIMIT_EXCEEDED`, one not yet known): the caller keeps what it had.
 */
const META_TEMPLATE_STATUSES: Record<string, (typeof TEMPLATE_STATUSES)[number]> = {
  APPROVED: 'APPROVED',
  PENDING: 'PENDING',
  REJECTED: 'REJECTED',
  PAUSED: 'PAUSED',
  DISABLED: 'DISABLED',
  DELETED: 'DELETED',
  IN_APPEAL: 'PENDING',
  PENDING_DELETION: 'DELETED',
  REINSTATED: 'APPROVED',
  FLAGGED: 'APPROVED',
  ARCHIVED: 'DISABLED',
};

export function templateStatusOf(meta: string | null | undefined): (typeof TEMPLATE_STATUSES)[number] | null {
  return META_TEMPLATE_STATUSES[(meta ?? '').trim().toUpperCase()] ?? null;
}
export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;

@Entity('whatsapp_templates')
export class WhatsappTemplate extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 64 }) wabaId!: string;
  @Column('uuid', { nullable: true }) phoneNumberId!: string | null;
  @Column('varchar', { length: 20 }) provider!: string;
  @Column('varchar', { length: 512 }) name!: string;
  @Column('varchar', { length: 20 }) language!: string;
  @Column('varchar', { length: 20 }) category!: string;
  @Column('varchar', { length: 12 }) status!: string;
  @Column('text', { nullable: true }) rejectionReason!: string | null;
  @Column('jsonb') components!: unknown[];
  @Column('text', { default: '' }) content!: string;
  @Column('int', { default: 0 }) parameterCount!: number;
  @Column('varchar', { length: 64, nullable: true }) templateId!: string | null;
}

export interface TemplateParams {
  body: Record<string, string>;
  header?: { type: string; url: string } | null;
}

@Entity('whatsapp_template_settings')
export class WhatsappTemplateSetting extends WorkspaceOwnedEntity {
  @Column('uuid', { nullable: true }) templateId!: string | null;
  @Column('jsonb') params!: TemplateParams;
  @Column('varchar', { length: 10, default: 'active' }) status!: 'active' | 'inactive';
}
