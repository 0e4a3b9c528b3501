import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsUuidValue } from '@/common/validation/validators';
import { WEBHOOK_EVENTS } from '../webhook-events';
import { DELIVERY_STATUSES, DeliveryStatus } from '../webhook-delivery.entity';

export class WebhookResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ format: 'uuid', description: 'the same value as uuid, named as in agent webhooks' })
  webhook_uuid!: string;
  @ApiProperty({ example: 'https://hooks.example.com/events' }) url!: string;
  @ApiProperty({ enum: WEBHOOK_EVENTS, isArray: true, example: ['conversation_status'] }) events!: string[];
  @ApiProperty({ example: true }) is_active!: boolean;
  @ApiProperty({ example: true, description: 'a secret is set; the secret itself is never returned' })
  has_secret!: boolean;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'until then deliveries are also signed with the secret replaced by the last rotation',
  })
  previous_secret_expires_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class RotateSecretDto {
  @ApiPropertyOptional({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'the new secret; when omitted one is generated (whsec_ + 24 random bytes in base64)',
  })
  @IsOptional()
  @IsString()
  @MinLength(8)
  @MaxLength(500)
  secret_key?: string;
}

export class RotatedSecretResponse {
  @ApiProperty({ format: 'uuid' }) webhook_uuid!: string;
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'the new secret, shown in this answer only',
  })
  secret_key!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'the old secret keeps signing (a second v1 signature) until then; null when there was none',
  })
  previous_secret_expires_at!: string | null;
}

export class ListDeliveriesQuery extends PageQuery {
  @ApiPropertyOptional({ format: 'uuid', description: 'a workspace or agent webhook' })
  @IsOptional()
  @IsUuidValue()
  webhook_uuid?: string;

  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: DeliveryStatus;

  @ApiPropertyOptional({ enum: WEBHOOK_EVENTS })
  @IsOptional()
  @IsIn(WEBHOOK_EVENTS, { message: `type must be one of ${WEBHOOK_EVENTS.join(', ')}` })
  type?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'created at or after' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'created at or before' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;
}

export class DeliveryAttemptResponse {
  @ApiProperty({ example: 1 }) attempt!: number;
  @ApiProperty({ example: false }) succeeded!: boolean;
  @ApiProperty({ nullable: true, type: Number, example: 503 }) status_code!: number | null;
  @ApiProperty({ example: 112 }) duration_ms!: number;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'Service Unavailable',
    description: 'first 1,000 characters',
  })
  response_excerpt!: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'HTTP 503' }) error!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) next_retry_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class DeliveryResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ format: 'uuid', description: 'the webhook-id header: the same on every attempt' })
  event_uuid!: string;
  @ApiProperty({ enum: WEBHOOK_EVENTS }) type!: string;
  @ApiProperty({ format: 'uuid' }) webhook_uuid!: string;
  @ApiProperty({ enum: ['workspace', 'agent', 'request'] }) webhook_kind!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: string;
  @ApiProperty({ example: 1 }) attempt_count!: number;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) next_attempt_at!: string | null;
  @ApiProperty({ nullable: true, type: Number }) last_status_code!: number | null;
  @ApiProperty({ nullable: true, type: String }) last_error!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) delivered_at!: string | null;
  @ApiProperty({ type: [DeliveryAttemptResponse] }) attempts!: DeliveryAttemptResponse[];
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}
