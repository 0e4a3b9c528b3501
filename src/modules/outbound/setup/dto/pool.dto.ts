import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
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
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { OptionalNotNull } from '@/common/validation/validators';
import { IsUuidList } from '@/common/validation/uuid-list';
import { POOL_TYPES, PoolType } from '../../outbound.entities';

const booleanQuery = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;

export class CreatePoolDto {
  @ApiProperty({ example: 'Spring renewals', minLength: 3, maxLength: 255 })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @Length(3, 255)
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Customers whose plan ends in April' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ enum: POOL_TYPES, default: 'FIFO' })
  @OptionalNotNull()
  @IsIn(POOL_TYPES)
  type?: PoolType;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 10, description: 'Parallel pools only' })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(100)
  max_parallel_items?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 10, default: 3 })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(10)
  max_retries?: number;

  @ApiPropertyOptional({ default: true })
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;
}

export class UpdatePoolDto {
  @ApiPropertyOptional({ example: 'Spring renewals', minLength: 3, maxLength: 255 })
  @OptionalNotNull()
  @IsNotEmpty()
  @IsString()
  @Length(3, 255)
  name?: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ enum: POOL_TYPES })
  @OptionalNotNull()
  @IsIn(POOL_TYPES)
  type?: PoolType;

  @ApiPropertyOptional({ minimum: 1, maximum: 100 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(100)
  max_parallel_items?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 10 })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(10)
  max_retries?: number;

  @ApiPropertyOptional()
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;
}

export class PoolListQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'in name and description', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({ enum: POOL_TYPES })
  @IsOptional()
  @IsIn(POOL_TYPES)
  type?: PoolType;

  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @Transform(booleanQuery)
  @IsBoolean()
  is_active?: boolean;
}

export class AddPoolContactsDto {
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: 1000 })
  @IsDefined()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(1000)
  @IsUuidList()
  contact_uuids!: string[];

  @ApiPropertyOptional({ minimum: 0, maximum: 100, default: 0 })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(100)
  priority?: number;
}

export const MEMBER_STATUSES = [
  'Pending',
  'Scheduled',
  'Processing',
  'In_Call',
  'Retrying',
  'Completed',
  'Failed',
  'Skipped',
  'Voicemail',
] as const;

export class PoolMemberQuery extends PageQuery {
  @ApiPropertyOptional({ maxLength: 200, description: 'in name, surname, email and phone number' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({ enum: MEMBER_STATUSES })
  @IsOptional()
  @IsIn(MEMBER_STATUSES)
  status?: string;
}

export class DuplicatePoolDto {
  @ApiPropertyOptional({ example: 'Spring renewals (copy)', minLength: 3, maxLength: 255 })
  @OptionalNotNull()
  @IsString()
  @Length(3, 255)
  name?: string;

  @ApiPropertyOptional({ default: true })
  @OptionalNotNull()
  @IsBoolean()
  copy_contacts?: boolean;
}

export class PoolResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'Spring renewals' }) name!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ enum: POOL_TYPES }) type!: PoolType;
  @ApiProperty({ example: 10 }) max_parallel_items!: number;
  @ApiProperty({ example: 3 }) max_retries!: number;
  @ApiProperty({ example: true }) is_active!: boolean;
  @ApiProperty({ example: 120 }) contacts_count!: number;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}

export class DuplicatedPoolResponse extends PoolResponse {
  @ApiProperty({ example: 120 }) contacts_copied!: number;
}

export class AddPoolContactsResponse {
  @ApiProperty({ format: 'uuid' }) pool_uuid!: string;
  @ApiProperty({ example: 2 }) contacts_added!: number;
  @ApiProperty({ example: 1 }) contacts_skipped!: number;
  @ApiProperty({ type: [String], format: 'uuid' }) contact_uuids_not_found!: string[];
  @ApiProperty({ example: 2 }) tasks_created!: number;
  @ApiProperty({ type: [String], format: 'uuid' }) running_campaign_uuids!: string[];
}

export class PoolMemberResponse {
  @ApiProperty({ format: 'uuid' }) contact_uuid!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ type: String, nullable: true }) surname!: string | null;
  @ApiProperty({ type: String, nullable: true }) phone_number!: string | null;
  @ApiProperty({ type: String, nullable: true }) email!: string | null;
  @ApiProperty({ enum: MEMBER_STATUSES }) status!: string;
  @ApiProperty({ example: 0 }) priority!: number;
  @ApiProperty({ example: 0 }) retry_count!: number;
  @ApiProperty({ type: String, nullable: true }) next_retry_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) started_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) completed_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) failed_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) notes!: string | null;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) added_at!: string;
}

export class RemovedMemberResponse {
  @ApiProperty({ format: 'uuid' }) contact_uuid!: string;
  @ApiProperty({ example: 1 }) tasks_cancelled!: number;
}
