import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { ENDPOINTING, INTERRUPTION, intIn, isObject } from '@/modules/agents/public';
import { voiceFlag, voiceSetting, voiceText } from '@/modules/calls/runtime/call-context';
import { defaultBackchannels } from './end-of-turn';
import type { VoiceSettings } from './media-session.types';

/** The keys' defaults, ranges and check on save are the agent's configuration (agents' voice-settings.ts). */
export { ENDPOINTING, INTERRUPTION, checkVoiceSettings } from '@/modules/agents/public';

type Voice = Record<string, unknown>;

/**
 * `settings.voice` as the media session reads it (10.4): out-of-range values of the older keys take the default;
 * `endpointing`, `interruption` and `stream_speech` are checked when the agent is saved (`checkVoiceSettings`).
 * An agent that sets `end_of_turn_silence_ms` and no `endpointing.mode` keeps that fixed silence. `sttMode` is the
 * call's (`realtime`: its words come from a stream): it chooses the default `min_silence_ms`; the agent's wins.
 */
export function voiceSettings(agent: AgentResponse, sttMode: 'batch' | 'realtime' = 'batch'): VoiceSettings {
  const voice: Voice = agent.settings?.voice ?? {};
  const endpointing = isObject(voice.endpointing) ? voice.endpointing : {};
  const interruption = isObject(voice.interruption) ? voice.interruption : {};
  const language = agent.language ? agent.language.slice(0, 2).toLowerCase() : null;
  const fixedSilence = typeof voice.end_of_turn_silence_ms === 'number';
  const mode =
    endpointing.mode === 'smart' || endpointing.mode === 'fixed'
      ? endpointing.mode
      : fixedSilence
        ? 'fixed'
        : 'smart';
  const minSilenceMs = intIn(endpointing.min_silence_ms, ENDPOINTING.minSilenceMs)
    ? endpointing.min_silence_ms
    : ENDPOINTING.minSilenceMs[sttMode === 'realtime' ? 'realtime' : 'default'];
  const maxSilence = intIn(endpointing.max_silence_ms, ENDPOINTING.maxSilenceMs)
    ? endpointing.max_silence_ms
    : ENDPOINTING.maxSilenceMs.default;
  const ignore = Array.isArray(interruption.ignore_words)
    ? interruption.ignore_words.filter((w): w is string => typeof w === 'string' && w.trim() !== '')
    : defaultBackchannels(language);
  return {
    endOfTurnSilenceMs: voiceSetting(agent, 'end_of_turn_silence_ms', 200, 3000, 700),
    endpointing: { mode, minSilenceMs, maxSilenceMs: Math.max(maxSilence, minSilenceMs) },
    interruptible: voiceFlag(agent, 'interruptible', true),
    interruption: {
      minSpeechMs: intIn(interruption.min_speech_ms, INTERRUPTION.minSpeechMs)
        ? interruption.min_speech_ms
        : INTERRUPTION.minSpeechMs.default,
      ignoreWords: ignore,
    },
    streamSpeech: voiceFlag(agent, 'stream_speech', true),
    voice: voiceText(agent, 'voice'),
    speed: agent.speed === 'fast' ? 1.15 : 1,
    language,
  };
}
