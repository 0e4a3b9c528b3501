import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import {
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { IsHttpsUrl, ListOf } from '@/common/validation/validators';
import { WEBHOOK_EVENTS, WebhookEvent } from '../webhook-events';
import { oneOf } from '@/common/validation/messages';
import { NotEmptyWhenArray } from '@/common/validation/non-empty-array';

export class WebhookDto {
  @ApiProperty({ example: 'https://hooks.example.com/agent-events', description: 'https only' })
  @IsDefined()
  @IsNotEmpty()
  @IsHttpsUrl()
  url!: string;

  @ApiProperty({ enum: WEBHOOK_EVENTS, isArray: true, example: ['conversation_status'] })
  @IsDefined()
  @IsArray()
  @NotEmptyWhenArray()
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENTS, { each: true, ...oneOf('each event', WEBHOOK_EVENTS) })
  events!: WebhookEvent[];

  @ApiPropertyOptional({ example: true, default: true })
  @IsOptional()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({
    example: 'whsec_3f9a1c...',
    description: 'signs deliveries; stored encrypted, never returned (null removes it)',
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  secret_key?: string | null;
}
export class UpdateWebhookDto extends PartialType(WebhookDto) {}
export class ReplaceWebhooksDto {
  @ApiProperty({ type: [WebhookDto], maxItems: 5 })
  @IsDefined()
  @ListOf(WebhookDto)
  webhooks!: WebhookDto[];
}
