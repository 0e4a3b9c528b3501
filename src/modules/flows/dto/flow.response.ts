import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

class StepValidationError {
  @ApiProperty({ example: 'VALIDATION_ERROR' }) code!: string;
  @ApiProperty({ example: 'config.url' }) field!: string;
  @ApiProperty({ example: 'config.url is required' }) message!: string;
}

export class FlowStepResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 2 }) step_number!: number;
  @ApiProperty({ enum: ['trigger', 'action'] }) kind!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) trigger_key!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'send_webhook' }) action_key!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Notify the CRM' }) name!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { url: 'https://crm.example.com/hook' },
  })
  config!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', example: null }) parent_step_uuid!:
    string | null;
  @ApiProperty({ type: String, nullable: true, enum: ['true', 'false'], example: 'true' }) branch_key!:
    string | null;
  @ApiProperty({ type: [StepValidationError] }) validation_errors!: StepValidationError[];
}

export class FlowResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'Welcome new contacts' }) name!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) description!: string | null;
  @ApiProperty({ enum: ['draft', 'deployed', 'disabled'] }) status!: string;
  @ApiProperty({ type: Number, nullable: true, example: 1 }) live_version!: number | null;
  @ApiProperty({ example: false }) has_undeployed_changes!: boolean;
  @ApiProperty({ type: [FlowStepResponse] }) steps!: FlowStepResponse[];
  @ApiProperty({ type: String, nullable: true, format: 'date-time', example: null }) deployed_at!:
    string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time', example: null }) disabled_at!:
    string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class FlowVersionResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ format: 'uuid' }) flow_uuid!: string;
  @ApiProperty({ example: 1 }) version_number!: number;
  @ApiProperty({ type: [FlowStepResponse] }) steps!: FlowStepResponse[];
  @ApiProperty({ format: 'date-time' }) deployed_at!: string;
}

class CatalogItem {
  @ApiProperty({ example: 'send_webhook' }) key!: string;
  @ApiProperty({ example: 'Send a webhook' }) name!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) config_schema!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { status_code: 200 } })
  output_example!: unknown;
}

export class FlowCatalogResponse {
  @ApiProperty({ type: [CatalogItem] }) triggers!: CatalogItem[];
  @ApiProperty({ type: [CatalogItem] }) actions!: CatalogItem[];
}

class StepErrorDto {
  @ApiProperty({ example: 'HTTP_ERROR' }) code!: string;
  @ApiProperty({ example: 'HTTP 500' }) message!: string;
}

export class ExecutionStepResponse {
  @ApiProperty({ format: 'uuid' }) step_uuid!: string;
  @ApiProperty({ example: 2 }) step_number!: number;
  @ApiProperty({ example: 'send_webhook' }) key!: string;
  @ApiProperty({ enum: ['succeeded', 'failed', 'skipped'] }) status!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) input!: unknown;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) output!: unknown;
  @ApiProperty({ type: StepErrorDto, nullable: true }) error!: StepErrorDto | null;
  @ApiProperty({ example: 1 }) attempts!: number;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) started_at!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 12 }) duration_ms!: number | null;
}

class ExecutionTriggerDto {
  @ApiProperty({ example: 'contact_created' }) key!: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) event_uuid!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) data!: unknown;
}

export class ExecutionResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ format: 'uuid' }) flow_uuid!: string;
  @ApiProperty({ example: 1 }) version!: number;
  @ApiProperty({ enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] }) status!: string;
  @ApiProperty({ type: ExecutionTriggerDto }) trigger!: ExecutionTriggerDto;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', example: null }) retry_of!: string | null;
  @ApiProperty({ type: StepErrorDto, nullable: true }) error!: StepErrorDto | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) started_at!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) finished_at!: string | null;
  @ApiPropertyOptional({ type: [ExecutionStepResponse], description: 'on the item only' })
  steps?: ExecutionStepResponse[];
}

export class StepTestResponse {
  @ApiPropertyOptional({ type: 'array', items: { type: 'object' }, description: 'trigger: sample outputs' })
  samples?: unknown[];
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'action: the rendered input',
  })
  input?: unknown;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'action run live: its output',
  })
  output?: unknown;
}

export class HookAccepted {
  @ApiProperty({ format: 'uuid' }) execution_uuid!: string;
}
