import { ApiProperty } from '@nestjs/swagger';
import {
  TEMPLATE_CATEGORIES,
  TEMPLATE_STATUSES,
  WhatsappTemplate,
  WhatsappTemplateSetting,
} from '../messaging.entities';

const TS = '2026-11-22T04:17:55.123Z';

export class TemplateResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'order_update' }) name!: string;
  @ApiProperty({ example: 'en_US' }) language!: string;
  @ApiProperty({ enum: TEMPLATE_CATEGORIES }) category!: string;
  @ApiProperty({ enum: TEMPLATE_STATUSES, example: 'APPROVED' }) status!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) rejection_reason!: string | null;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  components!: unknown[];
  @ApiProperty({ example: 'Hi {{1}}, your order {{2}} ships today.' }) content!: string;
  @ApiProperty({ example: 2 }) parameter_count!: number;
  @ApiProperty({ type: String, nullable: true, example: '1234567890' }) template_id!: string | null;
  @ApiProperty({ example: '102290129340398' }) waba_id!: string;
  @ApiProperty({ type: String, nullable: true, example: '+14155550100' }) phone_number!: string | null;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;

  static of(t: WhatsappTemplate, phoneNumber: string | null): TemplateResponse {
    return {
      uuid: t.id,
      name: t.name,
      language: t.language,
      category: t.category,
      status: t.status,
      rejection_reason: t.rejectionReason,
      components: t.components,
      content: t.content,
      parameter_count: t.parameterCount,
      template_id: t.templateId,
      waba_id: t.wabaId,
      phone_number: phoneNumber,
      created_at: t.createdAt.toISOString(),
      updated_at: t.updatedAt.toISOString(),
    };
  }
}

export class TemplateSummaryResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'order_update' }) name!: string;
  @ApiProperty({ example: 'en_US' }) language!: string;
  @ApiProperty({ enum: TEMPLATE_CATEGORIES }) category!: string;
  @ApiProperty({ enum: TEMPLATE_STATUSES }) status!: string;
}

export class TemplateSettingResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) template_uuid!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { body: { '1': '{{contact.name}}' } } })
  params!: Record<string, unknown>;
  @ApiProperty({ enum: ['active', 'inactive'] }) status!: string;
  @ApiProperty({ example: 'Hi Ada, your order [order] ships today.' }) content!: string;
  @ApiProperty({ type: TemplateSummaryResponse, nullable: true }) template!: TemplateSummaryResponse | null;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;

  static of(
    s: WhatsappTemplateSetting,
    t: WhatsappTemplate | null,
    content: string,
  ): TemplateSettingResponse {
    return {
      uuid: s.id,
      template_uuid: s.templateId,
      params: s.params as unknown as Record<string, unknown>,
      status: s.status,
      content,
      template: t
        ? { uuid: t.id, name: t.name, language: t.language, category: t.category, status: t.status }
        : null,
      created_at: s.createdAt.toISOString(),
      updated_at: s.updatedAt.toISOString(),
    };
  }
}

export class SyncResultResponse {
  @ApiProperty({ example: 2 }) created!: number;
  @ApiProperty({ example: 1 }) updated!: number;
  @ApiProperty({ example: 0 }) deleted!: number;
}
