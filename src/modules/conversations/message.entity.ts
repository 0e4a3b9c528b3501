import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { Channel } from './channels';

export type MessageDirection = 'inbound' | 'outbound';
export type MessageSender = 'customer' | 'agent' | 'system';

/**
 * The timing of one voice turn, stored on the agent's reply: whole milliseconds, null for a step that did not happen
 * (a reply said without the caller speaking has no endpoint or STT step).
 */
export interface MessageLatency {
  /** From the end of the caller's speech to the moment the turn was judged over. */
  endpoint_ms: number | null;
  /** From the caller's audio sent to speech-to-text to its transcript. */
  stt_ms: number | null;
  /** From the request to the language model to its first token. */
  model_first_token_ms: number | null;
  /** From the first sentence sent to text-to-speech to its first audio. */
  tts_first_audio_ms: number | null;
  /** From the end of the caller's speech to the first audio of the reply sent to the caller. */
  voice_to_voice_ms: number | null;
}

export const LATENCY_FIELDS = [
  'endpoint_ms',
  'stt_ms',
  'model_first_token_ms',
  'tts_first_audio_ms',
  'voice_to_voice_ms',
] as const satisfies readonly (keyof MessageLatency)[];

/** One turn of a conversation. Channel, agent and contact are copied from the conversation for the export. */
@Entity('messages')
export class Message extends WorkspaceOwnedEntity {
  @Column('uuid') conversationId!: string;
  @Column('uuid', { nullable: true }) sessionId!: string | null;
  @Column('uuid', { nullable: true }) agentId!: string | null;
  @Column('uuid', { nullable: true }) contactId!: string | null;
  @Column('varchar', { length: 20 }) channel!: Channel;
  @Column('varchar', { length: 10 }) direction!: MessageDirection;
  @Column('varchar', { length: 10 }) sender!: MessageSender;
  @Column('varchar', { length: 20, default: 'text' }) messageType!: string;
  @Column('text') content!: string;
  /** An agent reply cut by the customer speaking over it (a call's barge-in). */
  @Column('boolean', { default: false }) interrupted!: boolean;
  /** An agent reply on a call: how long each step of its turn took. Null on every other message. */
  @Column('jsonb', { nullable: true }) latency!: MessageLatency | null;
}
