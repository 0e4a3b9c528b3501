import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { OptionalNotNull } from '@/common/validation/validators';
import { UPDATE_BEHAVIORS, UpdateBehavior } from '../contact-analyzer.entity';

export const ANALYZER_TYPES = ['built_in', 'custom_field', 'pipeline_stage'] as const;
export const MAX_ANALYZER_TEXT = 1000;

export class UpdateAnalyzerDto {
  @ApiPropertyOptional({ enum: UPDATE_BEHAVIORS, example: 'ask_approval_if_existing' })
  @OptionalNotNull()
  @IsIn(UPDATE_BEHAVIORS, { message: `$property must be one of: ${UPDATE_BEHAVIORS.join(', ')}` })
  update_behavior?: UpdateBehavior;

  @ApiPropertyOptional({
    type: String,
    example: 'The plan the customer says they are on or want',
    maxLength: MAX_ANALYZER_TEXT,
    nullable: true,
    description: 'not for b_ analyzers (a different value is 422)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ANALYZER_TEXT)
  analysis_goals?: string | null;

  @ApiPropertyOptional({
    type: String,
    example: 'basic, pro, enterprise',
    maxLength: MAX_ANALYZER_TEXT,
    nullable: true,
    description: 'not for b_ nor p_ analyzers (422)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ANALYZER_TEXT)
  example_values?: string | null;
}

export class AnalyzerResponse {
  @ApiProperty({
    example: 'f_plan',
    description: '`b_<field>` built-in field, `f_<key>` custom field, `p_<stage uuid>` pipeline stage',
  })
  id!: string;
  @ApiProperty({ enum: ANALYZER_TYPES, example: 'custom_field' }) type!: (typeof ANALYZER_TYPES)[number];
  @ApiProperty({ example: 'Plan', description: 'the field label or the stage name' }) label!: string;
  @ApiProperty({
    type: String,
    example: 'custom_fields.plan',
    nullable: true,
    description: 'the contact field memorize writes (null for a stage)',
  })
  field_name!: string | null;
  @ApiProperty({ type: String, example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e70', nullable: true })
  stage_uuid!: string | null;
  @ApiProperty({ enum: UPDATE_BEHAVIORS, example: 'update_if_empty' }) update_behavior!: UpdateBehavior;
  @ApiProperty({ type: String, example: 'The plan the customer says they are on or want', nullable: true })
  analysis_goals!: string | null;
  @ApiProperty({ type: String, example: 'basic, pro, enterprise', nullable: true })
  example_values!: string | null;
  @ApiProperty({
    type: [String],
    example: ['update_behavior', 'analysis_goals', 'example_values'],
    description: 'the keys PUT /analyzers/{id} may change',
  })
  editable!: string[];
  @ApiProperty({
    type: String,
    example: null,
    nullable: true,
    description: 'when last changed; null while on defaults',
  })
  updated_at!: string | null;
}
