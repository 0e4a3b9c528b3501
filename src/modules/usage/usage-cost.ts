import type { PriceField, PriceTable } from '@/modules/workspaces/prices';
import type { UsageCounters } from './usage-counters';

export interface Cost {
  /** A decimal string with 6 digits after the point (micro-units of the currency), never a float. */
  amount: string;
  currency: string;
}

/** A canonical decimal price as an integer number of nano-units (9 decimals, as the table stores them). */
function nano(price: string): bigint {
  const [int, frac = ''] = price.split('.');
  return BigInt(int) * 1_000_000_000n + BigInt(frac.padEnd(9, '0').slice(0, 9));
}

/**
 * Each price's unit over a common denominator of 60,000: per 1,000 tokens or characters, per minute of STT audio
 * (60,000 ms), per call minute (60 s). Sum of count × nano-price × factor, over 60,000 × 10⁹, is the exact amount.
 */
const FACTOR: Record<PriceField, bigint> = {
  llm_prompt_per_1k: 60n,
  llm_completion_per_1k: 60n,
  stt_per_minute: 1n,
  tts_per_1k_characters: 60n,
  call_per_minute: 1000n,
};
/** 60,000 × 10⁹ / 10⁶: from the scaled sum to micro-units. */
const TO_MICRO = 60_000n * 1_000n;

/**
 * What the usage costs under the workspace's price table, exactly (integer arithmetic), rounded half up once to
 * micro-units. Without a table there is no cost: null, never an invented one.
 */
export function costOf(usage: UsageCounters, table: PriceTable | null): Cost | null {
  if (!table) return null;
  const count: Record<PriceField, number> = {
    llm_prompt_per_1k: usage.promptTokens,
    llm_completion_per_1k: usage.completionTokens,
    stt_per_minute: usage.sttMs,
    tts_per_1k_characters: usage.ttsCharacters,
    call_per_minute: usage.callSeconds + usage.forwardedSeconds,
  };
  let scaled = 0n;
  for (const field of Object.keys(FACTOR) as PriceField[])
    scaled += BigInt(Math.max(0, Math.trunc(count[field]))) * nano(table.prices[field]) * FACTOR[field];
  const micro = (scaled + TO_MICRO / 2n) / TO_MICRO;
  const amount = `${micro / 1_000_000n}.${(micro % 1_000_000n).toString().padStart(6, '0')}`;
  return { amount, currency: table.currency };
}
