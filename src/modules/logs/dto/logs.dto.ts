import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsUuidValue } from '@/common/validation/validators';
import { ACTION_LOG_TYPES, ActionLogType } from '../action-log.entity';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

class TimeRangeQuery extends PageQuery {
  @ApiPropertyOptional({ example: '2026-11-01T00:00:00Z', description: 'at or after' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;
  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'at or before' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;
}

export class ListRequestLogsQuery extends TimeRangeQuery {
  @ApiPropertyOptional({ enum: METHODS })
  @IsOptional()
  @IsIn(METHODS, { message: `method must be one of ${METHODS.join(', ')}` })
  method?: string;
  @ApiPropertyOptional({ example: '/api/v1/agents', description: 'path prefix' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  path?: string;
  @ApiPropertyOptional({ example: '4xx', maxLength: 3, description: '2xx, 3xx, 4xx, 5xx or an exact status' })
  @IsOptional()
  @Matches(/^([1-5]xx|[1-5]\d\d)$/, { message: 'status must be 2xx, 3xx, 4xx, 5xx or a status code' })
  status?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() token_uuid?: string;
}

export class ListActionLogsQuery extends TimeRangeQuery {
  @ApiPropertyOptional({ enum: ACTION_LOG_TYPES })
  @IsOptional()
  @IsIn(ACTION_LOG_TYPES, { message: `type must be one of ${ACTION_LOG_TYPES.join(', ')}` })
  type?: ActionLogType;
  @ApiPropertyOptional({ example: 'failed' }) @IsOptional() @IsString() @MaxLength(20) status?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() agent_uuid?: string;
}

export class LogTokenRef {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ type: String, nullable: true, example: 'CRM integration' }) name!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'a1b2' }) last_four!: string | null;
}

export class RequestLogResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: '0b6f8f7e-3c1d-4a51-9a8e-2f0c6f1d7e42' }) request_id!: string;
  @ApiProperty({ example: 'GET' }) method!: string;
  @ApiProperty({ example: '/api/v1/agents' }) path!: string;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    example: { per_page: '20', api_key: '[masked]' },
    description: 'secret-like values masked',
  })
  query!: Record<string, unknown> | null;
  @ApiProperty({ example: 200 }) status!: number;
  @ApiProperty({ example: 12 }) duration_ms!: number;
  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7' }) ip!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'curl/8.5.0' }) user_agent!: string | null;
  @ApiProperty({ type: LogTokenRef, nullable: true }) token!: LogTokenRef | null;
  @ApiProperty({ example: '2026-11-20T10:00:00.000Z' }) created_at!: string;
}

export class LogNamedRef {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Sales assistant' }) name!: string | null;
}

export class ActionLogResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ enum: ACTION_LOG_TYPES }) type!: string;
  @ApiProperty({ example: 'book_demo' }) name!: string;
  @ApiProperty({ example: 'succeeded' }) status!: string;
  @ApiProperty({ type: String, nullable: true, example: 'phone' }) channel!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 420 }) duration_ms!: number | null;
  @ApiProperty({ type: LogNamedRef, nullable: true }) agent!: LogNamedRef | null;
  @ApiProperty({ type: LogNamedRef, nullable: true }) contact!: LogNamedRef | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'what was sent (JSON)',
  })
  request!: unknown;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'what came back (JSON)',
    example: null,
  })
  response!: unknown;
  @ApiProperty({ type: String, nullable: true, example: null }) error!: string | null;
  @ApiProperty({ example: '2026-11-20T10:00:00.000Z' }) created_at!: string;
}
