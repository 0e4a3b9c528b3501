export { createVoiceActivity, sileroModel } from './create-voice-activity';
export type { VoiceActivityOptions } from './create-voice-activity';
export { EnergyVoiceActivity } from './energy-voice-activity';
export { SileroVoiceActivity } from './silero-voice-activity';
export { readWav } from './wav';
export { SILENCE_THRESHOLD, SPEECH_THRESHOLD } from './voice-activity';
export type { VadEngine, VadSampleRate, VoiceActivity } from './voice-activity';
