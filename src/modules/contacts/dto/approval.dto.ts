import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsUuidValue } from '@/common/validation/validators';
import { APPROVAL_STATUSES, ApprovalStatus } from '../contact-approval.entity';
import { MAX_TEXT_VALUE } from '../custom-fields';

/** A contact field value: text, or a custom field's number or boolean. */
const FIELD_VALUE = [
  { type: 'string', maxLength: MAX_TEXT_VALUE },
  { type: 'number' },
  { type: 'boolean' },
] as const;

export const CONFIDENCE_BANDS = ['high', 'medium', 'low'] as const;

export class ListApprovalsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: APPROVAL_STATUSES, example: 'Pending' })
  @IsOptional()
  @IsIn(APPROVAL_STATUSES, { message: '$property must be one of: Pending, Approved, Rejected' })
  status?: ApprovalStatus;

  @ApiPropertyOptional({
    example: 'email',
    description:
      'the field as proposals name it: `email`, `custom_fields.plan` for a custom field, `pipeline_stage`',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  field_name?: string;

  @ApiPropertyOptional({
    example: 'plan',
    description: 'a custom field key (the same as field_name=custom_fields.<key>)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  field_key?: string;

  @ApiPropertyOptional({
    enum: CONFIDENCE_BANDS,
    description: 'high ≥ 0.8, medium 0.5 to below 0.8, low < 0.5; proposals without a confidence match none',
  })
  @IsOptional()
  @IsIn(CONFIDENCE_BANDS, { message: '$property must be one of: high, medium, low' })
  confidence?: (typeof CONFIDENCE_BANDS)[number];

  @ApiPropertyOptional({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e71' })
  @IsOptional()
  @IsUuidValue()
  contact_uuid?: string;

  @ApiPropertyOptional({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e72' })
  @IsOptional()
  @IsUuidValue()
  conversation_uuid?: string;

  @ApiPropertyOptional({
    example: 'newmail',
    description: 'case-insensitive, in the field name, the proposed and current values and the reason',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;
}

export class ApproveApprovalDto {
  @ApiPropertyOptional({
    oneOf: [...FIELD_VALUE],
    example: 'ada@newmail.example',
    description:
      'the value to write instead of the proposed one; checked like PUT /contacts/{uuid} (an invalid one is 422 on `value` and nothing changes)',
  })
  @Allow()
  value?: unknown;
}

export class RejectApprovalDto {
  @ApiPropertyOptional({ example: 'The customer was joking', maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;
}

export class ApprovalResponse {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e80' }) uuid!: string;
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e71' }) contact_uuid!: string;
  @ApiProperty({ type: String, example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e72', nullable: true })
  conversation_uuid!: string | null;
  @ApiProperty({ type: String, example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e73', nullable: true })
  session_uuid!: string | null;
  @ApiProperty({
    example: 'email',
    description: '`email`, `custom_fields.<key>`, or `pipeline_stage` (its values are stage uuids)',
  })
  field_name!: string;
  @ApiProperty({
    oneOf: [...FIELD_VALUE],
    example: 'ada@example.com',
    nullable: true,
    description: 'the value stored when the proposal was made',
  })
  current_value!: unknown;
  @ApiProperty({ oneOf: [...FIELD_VALUE], example: 'ada@newmail.example' }) proposed_value!: unknown;
  @ApiProperty({ type: Number, example: 0.92, nullable: true, minimum: 0, maximum: 1 })
  confidence!: number | null;
  @ApiProperty({ type: String, example: 'The customer said their new email address', nullable: true })
  reason!: string | null;
  @ApiProperty({ enum: APPROVAL_STATUSES, example: 'Pending' }) status!: ApprovalStatus;
  @ApiProperty({ type: String, example: null, nullable: true }) decided_at!: string | null;
  @ApiProperty({
    oneOf: [...FIELD_VALUE],
    example: null,
    nullable: true,
    description: 'Approved: the value written (the proposed one or the edited one)',
  })
  applied_value!: unknown;
  @ApiProperty({ type: String, example: null, nullable: true, description: 'Rejected: the reason given' })
  rejection_reason!: string | null;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
}
