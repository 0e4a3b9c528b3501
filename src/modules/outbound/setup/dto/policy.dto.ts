import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { OptionalNotNull } from '@/common/validation/validators';
import {
  DAYS,
  Day,
  RETRY_OUTCOMES,
  RETRY_STRATEGIES,
  RetryOutcome,
  RetryStrategy,
} from '../../outbound.entities';

export const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

export class WindowDto {
  @ApiPropertyOptional({ enum: DAYS, isArray: true, example: ['mon', 'tue', 'wed', 'thu', 'fri'] })
  @OptionalNotNull()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(7)
  @IsIn(DAYS, { each: true })
  days?: Day[];

  @ApiPropertyOptional({ example: '09:00', pattern: HHMM.source, maxLength: 5 })
  @OptionalNotNull()
  @Matches(HHMM, { message: 'start_time must be a time HH:MM' })
  start_time?: string;

  @ApiPropertyOptional({ example: '18:00', pattern: HHMM.source, maxLength: 5 })
  @OptionalNotNull()
  @Matches(HHMM, { message: 'end_time must be a time HH:MM' })
  end_time?: string;

  @ApiPropertyOptional({ default: true })
  @OptionalNotNull()
  @IsBoolean()
  use_contact_timezone?: boolean;
}

export class RetryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 20, example: 3 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(20)
  max_attempts?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 10080, example: 120 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(10080)
  interval_minutes?: number;

  @ApiPropertyOptional({ enum: RETRY_STRATEGIES })
  @OptionalNotNull()
  @IsIn(RETRY_STRATEGIES)
  strategy?: RetryStrategy;

  @ApiPropertyOptional({ enum: RETRY_OUTCOMES, isArray: true, example: ['busy', 'no-answer'] })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(3)
  @IsIn(RETRY_OUTCOMES, { each: true })
  on?: RetryOutcome[];
}

export class WindowResponse {
  @ApiProperty({ enum: DAYS, isArray: true }) days!: Day[];
  @ApiProperty({ example: '09:00' }) start_time!: string;
  @ApiProperty({ example: '18:00' }) end_time!: string;
  @ApiProperty({ example: true }) use_contact_timezone!: boolean;
}

export class RetryResponse {
  @ApiProperty({ example: 3 }) max_attempts!: number;
  @ApiProperty({ example: 120 }) interval_minutes!: number;
  @ApiProperty({ enum: RETRY_STRATEGIES }) strategy!: RetryStrategy;
  @ApiProperty({ enum: RETRY_OUTCOMES, isArray: true }) on!: RetryOutcome[];
  @ApiProperty({ type: Number, nullable: true, example: 3, description: 'calls per contact-local day' })
  max_per_day!: number | null;
}

export class EffectivePolicyResponse {
  @ApiProperty({ type: WindowResponse }) window!: WindowResponse;
  @ApiProperty({ type: RetryResponse }) retry!: RetryResponse;
}
