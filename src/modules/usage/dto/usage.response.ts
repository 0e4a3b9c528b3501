import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { PriceTable } from '@/modules/workspaces/prices';
import { costOf } from '../usage-cost';
import type { UsageCounters } from '../usage-counters';

export class LlmUsageResponse {
  @ApiProperty({ example: 1840, description: "the model's `usage.prompt_tokens`, summed over its requests" })
  prompt_tokens!: number;
  @ApiProperty({ example: 312, description: "the model's `usage.completion_tokens`, summed" })
  completion_tokens!: number;
}

export class CallLegsResponse {
  @ApiProperty({
    example: 2.5,
    description: "the call's own leg: its duration (answered to ended) in minutes",
  })
  call!: number;
  @ApiProperty({
    example: 1.25,
    description: 'a forward to a number or extension, as the provider measured it',
  })
  forwarded!: number;
}

export class CostResponse {
  @ApiProperty({
    example: '0.046750',
    pattern: '^\\d+\\.\\d{6}$',
    description: 'decimal string, 6 digits after the point (micro-units of the currency), never a float',
  })
  amount!: string;
  @ApiProperty({ example: 'USD', description: 'ISO 4217, the price table’s' }) currency!: string;
}

export const USAGE_EXAMPLE = {
  llm: { prompt_tokens: 1840, completion_tokens: 312 },
  stt_seconds: 41.36,
  tts_characters: 918,
  call_minutes: 3.75,
  call_minutes_by_leg: { call: 2.5, forwarded: 1.25 },
  tool_calls: 2,
  cost: { amount: '0.046750', currency: 'USD' },
};

/** What a conversation (or a call, or an analytics bucket) used, and its cost under the workspace's prices. */
export class UsageResponse {
  @ApiProperty({ type: LlmUsageResponse }) llm!: LlmUsageResponse;
  @ApiProperty({ example: 41.36, description: 'seconds of audio sent to speech to text' })
  stt_seconds!: number;
  @ApiProperty({ example: 918, description: 'characters sent to text to speech' }) tts_characters!: number;
  @ApiProperty({
    example: 3.75,
    description: 'minutes of every call leg, to 2 decimals (cost uses the seconds)',
  })
  call_minutes!: number;
  @ApiProperty({ type: CallLegsResponse }) call_minutes_by_leg!: CallLegsResponse;
  @ApiProperty({ example: 2, description: "tool (intent) calls the agent's model made" }) tool_calls!: number;
  @ApiProperty({
    type: CostResponse,
    nullable: true,
    description: "under the workspace's current price table; null when it has none (no cost is invented)",
  })
  cost!: CostResponse | null;

  static of(u: UsageCounters, prices: PriceTable | null): UsageResponse {
    const minutes = (seconds: number) => Math.round((seconds / 60) * 100) / 100;
    return {
      llm: { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens },
      stt_seconds: u.sttMs / 1000,
      tts_characters: u.ttsCharacters,
      call_minutes: minutes(u.callSeconds + u.forwardedSeconds),
      call_minutes_by_leg: { call: minutes(u.callSeconds), forwarded: minutes(u.forwardedSeconds) },
      tool_calls: u.toolCalls,
      cost: costOf(u, prices),
    };
  }
}

/** The `usage` property of an answer that carries one. */
export const UsageProperty = (description: string) =>
  ApiPropertyOptional({ type: UsageResponse, example: USAGE_EXAMPLE, description });
