import { ApiProperty } from '@nestjs/swagger';
import { DELIVERY_STATUSES } from '@/providers/messaging/messaging.port';
import { CHANNELS } from '../channels';
import type { MessageLatency } from '../message.entity';
import { LatencyProperty, MessageLatencyResponse, messageLatency } from './responses';

const TS = '2026-11-22T04:17:55.123Z';
const iso = (d: Date | string | null): string | null => (d ? new Date(d).toISOString() : null);

export interface MessageTemplateRef {
  uuid: string;
  name: string;
  language: string;
  parameters: Record<string, string>;
}

/**
 * A message with its provider side as `ConversationViewsRepository.MESSAGE_VIEW_SQL` reads it (the provider columns
 * are null for a message that never went through a provider).
 */
export interface MessageViewRow {
  uuid: string;
  conversation_uuid: string;
  session_uuid: string | null;
  agent_uuid: string | null;
  contact_uuid: string | null;
  channel: string;
  direction: string;
  sender: string;
  message_type: string;
  content: string;
  interrupted: boolean;
  latency: MessageLatency | null;
  created_at: Date;
  from: string | null;
  to: string | null;
  provider: string | null;
  provider_message_id: string | null;
  delivery_status: string | null;
  error: { code: string; message: string } | null;
  status_updated_at: Date | null;
  template: MessageTemplateRef | null;
  metadata: Record<string, unknown> | null;
  is_simulation: boolean | null;
  phone_number_uuid: string | null;
}

export class MessageErrorResponse {
  @ApiProperty({ example: '131047' }) code!: string;
  @ApiProperty({ example: 'Re-engagement message' }) message!: string;
}

export class MessageTemplateRefResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'order_update' }) name!: string;
  @ApiProperty({ example: 'en_US' }) language!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { '1': 'Ada' } })
  parameters!: Record<string, string>;
}

/**
 * A message with its provider side (`null` fields for messages that never went through a provider), as
 * `GET /messages/{uuid}` and each item of `GET /conversations/{uuid}/messages` answer it.
 */
export class ProviderMessageResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ format: 'uuid' }) conversation_uuid!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) session_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) agent_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) contact_uuid!: string | null;
  @ApiProperty({ enum: CHANNELS, example: 'sms' }) channel!: string;
  @ApiProperty({ enum: ['inbound', 'outbound'], example: 'outbound' }) direction!: string;
  @ApiProperty({ enum: ['customer', 'agent', 'system'], example: 'agent' }) sender!: string;
  @ApiProperty({ example: 'text' }) message_type!: string;
  @ApiProperty({ example: 'Your order ships today.' }) content!: string;
  @ApiProperty({ type: String, example: '+14155550100', nullable: true }) from!: string | null;
  @ApiProperty({ type: String, example: '+14155552671', nullable: true }) to!: string | null;
  @ApiProperty({ type: String, example: 'sandbox', nullable: true }) provider!: string | null;
  @ApiProperty({ type: String, example: 'SM0123456789abcdef0123456789abcdef', nullable: true })
  provider_message_id!: string | null;
  @ApiProperty({ enum: DELIVERY_STATUSES, nullable: true, example: 'queued' }) delivery_status!:
    string | null;
  @ApiProperty({ type: MessageErrorResponse, nullable: true }) error!: MessageErrorResponse | null;
  @ApiProperty({ type: String, example: TS, nullable: true }) status_updated_at!: string | null;
  @ApiProperty({ type: MessageTemplateRefResponse, nullable: true })
  template!: MessageTemplateRefResponse | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) phone_number_uuid!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} }) metadata!: Record<
    string,
    unknown
  >;
  @ApiProperty({ example: true }) is_simulation!: boolean;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ required: false, description: 'present (true) on an agent reply the customer spoke over' })
  interrupted?: boolean;
  @LatencyProperty() latency!: MessageLatencyResponse | null;

  static of(r: MessageViewRow): ProviderMessageResponse {
    return {
      uuid: r.uuid,
      conversation_uuid: r.conversation_uuid,
      session_uuid: r.session_uuid,
      agent_uuid: r.agent_uuid,
      contact_uuid: r.contact_uuid,
      channel: r.channel,
      direction: r.direction,
      sender: r.sender,
      message_type: r.message_type,
      content: r.content,
      from: r.from,
      to: r.to,
      provider: r.provider,
      provider_message_id: r.provider_message_id,
      delivery_status: r.delivery_status,
      error: r.error,
      status_updated_at: iso(r.status_updated_at),
      template: r.template,
      phone_number_uuid: r.phone_number_uuid,
      metadata: publicMetadata(r.metadata),
      is_simulation: r.is_simulation ?? false,
      created_at: iso(r.created_at)!,
      ...(r.interrupted ? { interrupted: true } : {}),
      latency: messageLatency(r.latency),
    };
  }
}

/**
 * The metadata a client gave (`{}` when none). A template message also keeps, under `template_payload`, what its send
 * job hands to the provider: that stays inside.
 */
function publicMetadata(metadata: Record<string, unknown> | null | undefined): Record<string, unknown> {
  if (!metadata) return {};
  if (!('template_payload' in metadata)) return metadata;
  const { template_payload: _internal, ...given } = metadata;
  return given;
}
