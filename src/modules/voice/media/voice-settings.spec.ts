import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { voiceSettings } from './voice-settings';

const agent = (voice?: Record<string, unknown>) =>
  ({ language: 'en', settings: voice ? { voice } : {} }) as unknown as AgentResponse;

describe('voiceSettings: endpointing defaults by the call speech-to-text mode', () => {
  it('min_silence_ms defaults to 100 in batch and 60 when the words come from a stream', () => {
    expect(voiceSettings(agent()).endpointing).toEqual({
      mode: 'smart',
      minSilenceMs: 100,
      maxSilenceMs: 1500,
    });
    expect(voiceSettings(agent(), 'batch').endpointing.minSilenceMs).toBe(100);
    expect(voiceSettings(agent(), 'realtime').endpointing).toEqual({
      mode: 'smart',
      minSilenceMs: 60,
      maxSilenceMs: 1500,
    });
  });

  it("the agent's min_silence_ms wins in either mode; one out of range takes the mode's default", () => {
    for (const mode of ['batch', 'realtime'] as const) {
      expect(
        voiceSettings(agent({ endpointing: { min_silence_ms: 100 } }), mode).endpointing.minSilenceMs,
      ).toBe(100);
      expect(
        voiceSettings(agent({ endpointing: { min_silence_ms: 250 } }), mode).endpointing.minSilenceMs,
      ).toBe(250);
    }
    expect(
      voiceSettings(agent({ endpointing: { min_silence_ms: 10 } }), 'realtime').endpointing.minSilenceMs,
    ).toBe(60);
  });

  it('fixed endpointing keeps its silence; the pause default does not change it', () => {
    const fixed = voiceSettings(agent({ end_of_turn_silence_ms: 900 }), 'realtime');
    expect(fixed.endpointing.mode).toBe('fixed');
    expect(fixed.endOfTurnSilenceMs).toBe(900);
  });
});
