/**
 * What the agents module offers other modules besides the providers its module exports (AgentsService among them):
 * the definitions of an agent's `settings.voice` turn-taking keys (defaults, ranges, the check on save), which the
 * voice module reads calls with.
 */
export { ENDPOINTING, INTERRUPTION, checkVoiceSettings, intIn, isObject } from './voice-settings';
