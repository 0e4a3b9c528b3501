import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import type { PriceTable } from '../prices';

const DECIMAL_PATTERN = '^\\d{1,9}(\\.\\d{1,9})?$';

/** A price in the body: a JSON number or a decimal string; checked by the service (the CLI takes the same path). */
const PriceInput = (description: string, example: string) =>
  ApiPropertyOptional({
    oneOf: [
      { type: 'string', pattern: DECIMAL_PATTERN, maxLength: 19 },
      { type: 'number', minimum: 0 },
    ],
    default: '0',
    example,
    description: `${description}; at most 9 digits before and after the point; 0 when left out`,
  });

/** `PUT /internal/v1/workspaces/{slug}/prices`: the whole table, replacing the one before. */
export class SetPricesDto {
  @ApiProperty({
    type: String,
    example: 'USD',
    description: 'ISO 4217 code of every price and cost',
    minLength: 3,
    maxLength: 3,
  })
  @Allow()
  currency!: unknown;

  @PriceInput('per 1,000 prompt (input) tokens of the language model', '0.0005')
  @Allow()
  llm_prompt_per_1k?: unknown;

  @PriceInput('per 1,000 completion (output) tokens of the language model', '0.0015')
  @Allow()
  llm_completion_per_1k?: unknown;

  @PriceInput('per minute of audio sent to speech to text', '0.006')
  @Allow()
  stt_per_minute?: unknown;

  @PriceInput('per 1,000 characters sent to text to speech', '0.015')
  @Allow()
  tts_per_1k_characters?: unknown;

  @PriceInput('per minute of call (every leg)', '0.013')
  @Allow()
  call_per_minute?: unknown;
}

const price = (description: string, example: string) =>
  ApiProperty({
    type: String,
    pattern: DECIMAL_PATTERN,
    example,
    description: `${description} (decimal string)`,
  });

export class PriceTableResponse {
  @ApiProperty({ example: 'USD', description: 'ISO 4217' }) currency!: string;
  @price('per 1,000 prompt tokens', '0.0005') llm_prompt_per_1k!: string;
  @price('per 1,000 completion tokens', '0.0015') llm_completion_per_1k!: string;
  @price('per minute of audio sent to speech to text', '0.006') stt_per_minute!: string;
  @price('per 1,000 characters sent to text to speech', '0.015') tts_per_1k_characters!: string;
  @price('per call minute', '0.013') call_per_minute!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;

  static of(t: PriceTable): PriceTableResponse {
    return { currency: t.currency, ...t.prices, updated_at: t.updatedAt.toISOString() };
  }
}
