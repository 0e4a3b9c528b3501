import type { PriceTable } from '@/modules/workspaces/prices';
import { costOf } from './usage-cost';
import { NO_USAGE } from './usage-counters';

const table = (prices: Partial<PriceTable['prices']>, currency = 'USD'): PriceTable => ({
  currency,
  prices: {
    llm_prompt_per_1k: '0',
    llm_completion_per_1k: '0',
    stt_per_minute: '0',
    tts_per_1k_characters: '0',
    call_per_minute: '0',
    ...prices,
  },
  updatedAt: new Date(0),
});

describe('costOf', () => {
  it('is null without a price table, whatever was used', () => {
    expect(costOf({ ...NO_USAGE, promptTokens: 1000, callSeconds: 60 }, null)).toBeNull();
  });

  it('prices each unit: per 1,000 tokens and characters, per minute of audio and of every call leg', () => {
    const prices = table({
      llm_prompt_per_1k: '0.0005',
      llm_completion_per_1k: '0.0015',
      stt_per_minute: '0.006',
      tts_per_1k_characters: '0.015',
      call_per_minute: '0.013',
    });
    const usage = {
      promptTokens: 2000,
      completionTokens: 1000,
      sttMs: 30_000,
      ttsCharacters: 500,
      toolCalls: 4,
      callSeconds: 90,
      forwardedSeconds: 30,
    };
    // 0.001 + 0.0015 + 0.003 + 0.0075 + 0.026 (tool calls are not priced)
    expect(costOf(usage, prices)).toEqual({ amount: '0.039000', currency: 'USD' });
  });

  it('adds exactly where floats would not, and rounds half up once, to micro-units', () => {
    // 0.1 + 0.2 per minute for 1 minute each: 0.3 exactly.
    const prices = table({ stt_per_minute: '0.1', call_per_minute: '0.2' }, 'EUR');
    expect(costOf({ ...NO_USAGE, sttMs: 60_000, callSeconds: 60 }, prices)).toEqual({
      amount: '0.300000',
      currency: 'EUR',
    });
    // 0.0000005 per token: 1 token is half a micro-unit, rounded up; 3 tokens 1.5, rounded up to 2.
    const tiny = table({ llm_prompt_per_1k: '0.0005' });
    expect(costOf({ ...NO_USAGE, promptTokens: 1 }, tiny)!.amount).toBe('0.000001');
    expect(costOf({ ...NO_USAGE, promptTokens: 3 }, tiny)!.amount).toBe('0.000002');
    // Large figures stay exact (integer arithmetic).
    const big = table({ llm_completion_per_1k: '999999999.999999999' });
    expect(costOf({ ...NO_USAGE, completionTokens: 1_000_000_000 }, big)!.amount).toBe(
      '999999999999999.999000',
    );
  });
});
