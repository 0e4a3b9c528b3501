import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsUuidValue } from '@/common/validation/validators';

const FLOW_STATUSES = ['draft', 'deployed', 'disabled'] as const;
const EXECUTION_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;

export class CreateFlowDto {
  @ApiProperty({ example: 'Welcome new contacts', maxLength: 255 })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(255)
  name!: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Sends a webhook for every new contact',
    maxLength: 2000,
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;
}

export class UpdateFlowDto {
  @ApiPropertyOptional({ example: 'Welcome new contacts', maxLength: 255 })
  @ValidateIf((_, v) => v !== undefined)
  @IsNotEmpty()
  @IsString()
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Sends a webhook for every new contact',
    maxLength: 2000,
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;
}

export class ListFlowsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: FLOW_STATUSES })
  @IsOptional()
  @IsIn(FLOW_STATUSES, { message: `status must be one of ${FLOW_STATUSES.join(', ')}` })
  status?: (typeof FLOW_STATUSES)[number];

  @ApiPropertyOptional({ description: 'substring of the name', maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  search?: string;
}

export class AddStepDto {
  @ApiProperty({ enum: ['trigger', 'action'], example: 'action' })
  @IsDefined()
  @IsIn(['trigger', 'action'], { message: 'kind must be one of trigger, action' })
  kind!: 'trigger' | 'action';

  @ApiPropertyOptional({ example: 'contact_created', description: 'with kind trigger' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  trigger_key?: string;

  @ApiPropertyOptional({ example: 'send_webhook', description: 'with kind action' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  action_key?: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Notify the CRM', maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { url: 'https://crm.example.com/hook', body: { name: '{{step1.contact.name}}' } },
  })
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'default: the end (of the branch when a parent is given)',
  })
  @IsOptional()
  @IsUuidValue()
  insert_after_step_uuid?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'a condition step' })
  @IsOptional()
  @IsUuidValue()
  parent_step_uuid?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'branch_key must be one of true, false' })
  branch_key?: 'true' | 'false';
}

/** The keys sent change: `trigger_key` or `action_key` (within the step's kind), `name`, `config`. */
export class UpdateStepDto extends PickType(AddStepDto, [
  'trigger_key',
  'action_key',
  'name',
  'config',
] as const) {}

export class TestStepDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'trigger: the sample data to use',
    example: { contact: { name: 'Ada' } },
  })
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'action: outputs of earlier steps by number ("1": {...}) and config overrides',
    example: { '1': { contact: { uuid: '0190f0c1-0000-7000-8000-000000000001' } } },
  })
  @IsOptional()
  @IsObject()
  input?: Record<string, unknown>;

  @ApiPropertyOptional({ example: false, description: 'action: really run it' })
  @IsOptional()
  @IsBoolean()
  live?: boolean;
}

export class ListExecutionsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: EXECUTION_STATUSES })
  @IsOptional()
  @IsIn(EXECUTION_STATUSES, { message: `status must be one of ${EXECUTION_STATUSES.join(', ')}` })
  status?: (typeof EXECUTION_STATUSES)[number];

  @ApiPropertyOptional({
    description: 'created at or after (inclusive)',
    example: '2026-11-01T00:00:00.000Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;

  @ApiPropertyOptional({ description: 'created before (exclusive)', example: '2026-12-01T00:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;
}
