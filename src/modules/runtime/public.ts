/**
 * What the runtime module offers other modules: the turn pipeline (its service is exported by RuntimeModule), how a
 * turn is shaped and taken live, and how much history a reply's prompt carries.
 */
export { ConversationTurnsService } from './conversation-turns.service';
export type { TurnOptions } from './conversation-turns.service';
export { REPLY_HISTORY } from './conversation-reply.service';
export { TurnCancelled } from './turn-gate';
export type { LiveTurn } from './turn-gate';
