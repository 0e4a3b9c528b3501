import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { OptionalNotNull } from '@/common/validation/validators';
import {
  DAYS,
  Day,
  RETRY_OUTCOMES,
  RETRY_STRATEGIES,
  RetryOutcome,
  RetryStrategy,
} from '../../outbound.entities';
import { HHMM } from './policy.dto';

export class RuleFieldsDto {
  @ApiPropertyOptional({ enum: ['call', 'text'], default: 'call' })
  @OptionalNotNull()
  @IsIn(['call', 'text'])
  type?: 'call' | 'text';

  @ApiPropertyOptional({ minimum: 1, maximum: 20, default: 3 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(20)
  max_calls_per_day?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 20, default: 10 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(20)
  max_total_calls?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 10080, default: 120 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(10080)
  retry_interval_minutes?: number;

  @ApiPropertyOptional({ enum: RETRY_STRATEGIES, default: 'fixed' })
  @OptionalNotNull()
  @IsIn(RETRY_STRATEGIES)
  retry_strategy?: RetryStrategy;

  @ApiPropertyOptional({ enum: RETRY_OUTCOMES, isArray: true, default: ['busy', 'no-answer'] })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(3)
  @IsIn(RETRY_OUTCOMES, { each: true })
  retry_on?: RetryOutcome[];

  @ApiPropertyOptional({ enum: DAYS, isArray: true, default: ['mon', 'tue', 'wed', 'thu', 'fri'] })
  @OptionalNotNull()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(7)
  @IsIn(DAYS, { each: true })
  days?: Day[];

  @ApiPropertyOptional({ example: '09:00', default: '09:00', pattern: HHMM.source, maxLength: 5 })
  @OptionalNotNull()
  @Matches(HHMM, { message: 'start_time must be a time HH:MM' })
  start_time?: string;

  @ApiPropertyOptional({ example: '18:00', default: '18:00', pattern: HHMM.source, maxLength: 5 })
  @OptionalNotNull()
  @Matches(HHMM, { message: 'end_time must be a time HH:MM' })
  end_time?: string;

  @ApiPropertyOptional({ default: true, description: 'kept for shape; the blacklist always applies' })
  @OptionalNotNull()
  @IsBoolean()
  dnc_check?: boolean;
}

export class CreateRuleDto extends RuleFieldsDto {
  @ApiProperty({ example: 'Weekday mornings', minLength: 3, maxLength: 255 })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @Length(3, 255)
  name!: string;
}

export class UpdateRuleDto extends RuleFieldsDto {
  @ApiPropertyOptional({ example: 'Weekday mornings', minLength: 3, maxLength: 255 })
  @OptionalNotNull()
  @IsNotEmpty()
  @IsString()
  @Length(3, 255)
  name?: string;
}

export class RuleListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ['call', 'text'] })
  @IsOptional()
  @IsIn(['call', 'text'])
  type?: 'call' | 'text';

  @ApiPropertyOptional({
    description: 'in the name, case-insensitive (`%` and `_` are literal)',
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;
}

export class RuleResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'Weekday mornings' }) name!: string;
  @ApiProperty({ enum: ['call', 'text'] }) type!: string;
  @ApiProperty({ example: 3 }) max_calls_per_day!: number;
  @ApiProperty({ example: 10 }) max_total_calls!: number;
  @ApiProperty({ example: 120 }) retry_interval_minutes!: number;
  @ApiProperty({ enum: RETRY_STRATEGIES }) retry_strategy!: string;
  @ApiProperty({ enum: RETRY_OUTCOMES, isArray: true }) retry_on!: string[];
  @ApiProperty({ enum: DAYS, isArray: true }) days!: string[];
  @ApiProperty({ example: '09:00' }) start_time!: string;
  @ApiProperty({ example: '18:00' }) end_time!: string;
  @ApiProperty({ example: true }) dnc_check!: boolean;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}
