import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { LANGUAGE, LANGUAGE_MAX } from '../settings/evaluation-settings';

const FEATURE_EXAMPLE = {
  success_evaluation_prompt: {
    enabled: true,
    description: 'Did the conversation reach its goal?',
    prompt: 'Was a demo booked?',
    type: 'boolean',
  },
  summary_prompt: { enabled: true, description: 'Summarise the session', type: 'text' },
};

export class EvaluationSettingsBody {
  @ApiPropertyOptional({ example: true }) is_active?: boolean;
  @ApiPropertyOptional({ example: 'en', maxLength: LANGUAGE_MAX, pattern: LANGUAGE.source })
  report_language?: string;
  @ApiPropertyOptional({ example: { timeout_minutes: 30 } }) sessionization?: { timeout_minutes?: number };
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'features by name: {enabled, description, prompt?, type: boolean | score | label | text, labels?}; null removes one',
    example: FEATURE_EXAMPLE,
  })
  text?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: FEATURE_EXAMPLE })
  voice?: Record<string, unknown>;
}

export class EvaluationSettingsResponse {
  @ApiProperty({ enum: ['default', 'agent'] }) source!: string;
  @ApiProperty({ example: 12, description: 'grows on every change of the effective settings' })
  version!: number;
  @ApiProperty({ example: true }) is_active!: boolean;
  @ApiProperty({ example: 'en' }) report_language!: string;
  @ApiProperty({ example: { timeout_minutes: 30 } }) sessionization!: object;
  @ApiProperty({ type: 'object', additionalProperties: true, example: FEATURE_EXAMPLE }) text!: object;
  @ApiProperty({ type: 'object', additionalProperties: true, example: FEATURE_EXAMPLE }) voice!: object;
}
