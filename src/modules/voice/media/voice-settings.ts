import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { voiceFlag, voiceSetting, voiceText } from '@/modules/calls/call-context';
import type { VoiceSettings } from './media-session';

/** `settings.voice` as the media session reads it (10.4); out-of-range values take the default. */
export function voiceSettings(agent: AgentResponse): VoiceSettings {
  return {
    endOfTurnSilenceMs: voiceSetting(agent, 'end_of_turn_silence_ms', 200, 3000, 700),
    interruptible: voiceFlag(agent, 'interruptible', true),
    voice: voiceText(agent, 'voice'),
    speed: agent.speed === 'fast' ? 1.15 : 1,
    language: agent.language ? agent.language.slice(0, 2).toLowerCase() : null,
  };
}
