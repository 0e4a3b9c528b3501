/**
 * What the runtime module offers other modules: the turn pipeline as a stream of events (TurnRuntime, exported by
 * RuntimeModule), how a turn is shaped and taken live, and how much history a reply's prompt carries.
 */
export { TurnRuntime } from './turn-runtime.service';
export type { TakeTurnOptions, TurnInput } from './turn-runtime.service';
export { outcomeOf, turnStream } from './turn-events';
export type { TurnEvent, TurnProgress } from './turn-events';
export { ConversationTurnsService } from './conversation-turns.service';
export type { TurnOptions } from './conversation-turns.service';
export { REPLY_HISTORY } from './conversation-reply.service';
export { TurnCancelled } from './turn-gate';
export type { LiveTurn } from './turn-gate';
