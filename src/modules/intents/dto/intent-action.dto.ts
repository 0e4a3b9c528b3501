import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsHttpsUrl, IsUuidValue } from '@/common/validation/validators';
import { oneOf } from '@/modules/agents/dto/collection-fields';
import { ACTION_TYPES } from '../tools/intent-action.entity';

const TS = '2026-11-22T04:17:55.123Z';

/** The keys of every kind; the service checks which ones the chosen `type` needs and keeps only those. */
export class IntentActionConfigDto {
  @ApiPropertyOptional({ example: 'https://hooks.example.com/orders', description: 'webhook: the target' })
  @IsOptional()
  @IsHttpsUrl()
  url?: string;

  @ApiPropertyOptional({
    example: 'tok_123',
    maxLength: 500,
    nullable: true,
    description: 'webhook: bearer token',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  auth_token?: string | null;

  @ApiPropertyOptional({ format: 'uuid', description: 'agent: the agent that takes the conversation over' })
  @IsOptional()
  @IsUuidValue()
  agent_uuid?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'scenario: the deployed flow to start' })
  @IsOptional()
  @IsUuidValue()
  flow_uuid?: string;

  @ApiPropertyOptional({ enum: ['tables'], description: 'app: the built-in app' })
  @IsOptional()
  @IsIn(['tables'], oneOf('app', ['tables']))
  app?: 'tables';

  @ApiPropertyOptional({ enum: ['ai_query'], description: 'app: the app action' })
  @IsOptional()
  @IsIn(['ai_query'], oneOf('action', ['ai_query']))
  action?: 'ai_query';

  @ApiPropertyOptional({ format: 'uuid', description: 'app ai_query: the data table searched' })
  @IsOptional()
  @IsUuidValue()
  table_uuid?: string;

  @ApiPropertyOptional({ example: 5, minimum: 1, maximum: 50, default: 5, description: 'app ai_query' })
  @IsOptional()
  @IsInt({ message: 'max_results must be an integer' })
  @Min(1)
  @Max(50)
  max_results?: number;

  @ApiPropertyOptional({
    example: 'the product name or feature the customer asks about',
    maxLength: 1000,
    nullable: true,
    description: 'app ai_query: tells the model what to put in `query`',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  query_description?: string | null;
}

export class PutIntentActionDto {
  @ApiProperty({ enum: ACTION_TYPES, example: 'webhook' })
  @IsDefined()
  @IsNotEmpty()
  @IsIn(ACTION_TYPES, oneOf('type', ACTION_TYPES))
  type!: (typeof ACTION_TYPES)[number];

  @ApiProperty({ type: IntentActionConfigDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => IntentActionConfigDto)
  config!: IntentActionConfigDto;
}

export class IntentActionResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ format: 'uuid' }) intent_uuid!: string;
  @ApiProperty({ enum: ACTION_TYPES, example: 'webhook' }) type!: string;
  @ApiProperty({ enum: ['draft', 'deployed'], example: 'draft' }) status!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { url: 'https://hooks.example.com/orders', auth_token: 'tok_123' },
    description: 'the keys of its type only',
  })
  config!: Record<string, unknown>;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;
}
