import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHANNELS } from '../channels';
import { CONVERSATION_SOURCES, type Conversation } from '../conversation.entity';
import { LATENCY_FIELDS, type Message, type MessageLatency } from '../message.entity';
import type { Session } from '../session.entity';
import { UsageProperty, type UsageResponse } from '@/modules/usage/dto/usage.response';

const TS = '2026-11-22T04:17:55.123Z';
const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
/** The public fields of an entity, so a plain copy of one can be mapped too. */
type Plain<T> = Pick<T, keyof T>;

export class ConversationResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) agent_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) contact_uuid!: string | null;
  @ApiProperty({ enum: CHANNELS, example: 'chat' }) channel!: string;
  @ApiProperty({ enum: ['active', 'closed'], example: 'active' }) status!: string;
  @ApiProperty({
    enum: CONVERSATION_SOURCES,
    example: 'live',
    description: '`transcription`: made from a recorded call by `POST /transcriptions` with `qa_agent_uuid`',
  })
  source!: string;
  @ApiProperty({ type: String, example: '+14155552671', nullable: true }) phone!: string | null;
  @ApiProperty({ type: String, example: TS, nullable: true }) last_message_at!: string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) closed_at!: string | null;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;
  @ApiPropertyOptional({
    type: String,
    example: TS,
    nullable: true,
    description:
      'WhatsApp conversations read through GET: when the 24-hour customer-service window closes (24 h after the ' +
      "customer's last message); null when the customer never wrote. Free-form text is accepted until then.",
  })
  messaging_window_expires_at?: string | null;
  @ApiPropertyOptional({
    enum: ['AI', 'Human'],
    example: 'AI',
    description:
      'Read through GET (one conversation and the list): `Human` once a person took it over (a guard `forward` ' +
      'on a text channel, after which the agent stays silent until the conversation is closed; a call forwarded ' +
      'to a number or extension), else `AI`.',
  })
  handled_by?: 'AI' | 'Human';
  @UsageProperty(
    'Read through `GET /conversations/{uuid}` only: model tokens, speech, call minutes and tool calls so far, and ' +
      "their cost under the workspace's price table (null without one). A call's conversation answers its call's.",
  )
  usage?: UsageResponse;

  static of(c: Plain<Conversation>): ConversationResponse {
    return {
      uuid: c.id,
      agent_uuid: c.agentId,
      contact_uuid: c.contactId,
      channel: c.channel,
      status: c.status,
      source: c.source,
      phone: c.phone,
      last_message_at: iso(c.lastMessageAt),
      closed_at: iso(c.closedAt),
      created_at: c.createdAt.toISOString(),
      updated_at: c.updatedAt.toISOString(),
    };
  }
}

const ms = (description: string, example: number) =>
  ApiProperty({
    type: 'integer',
    format: 'int32',
    nullable: true,
    minimum: 0,
    maximum: 2_147_483_647,
    example,
    description,
  });

/** The timing of a voice turn, on the agent's reply; a step that did not happen is null. */
export class MessageLatencyResponse {
  @ms(
    "Milliseconds from the end of the caller's speech to the moment the turn was judged over (endpointing)",
    180,
  )
  endpoint_ms!: number | null;
  @ms("Milliseconds from the caller's audio sent to speech-to-text to its transcript", 240)
  stt_ms!: number | null;
  @ms('Milliseconds from the request to the language model to its first token', 310)
  model_first_token_ms!: number | null;
  @ms('Milliseconds from the first sentence sent to text-to-speech to its first audio', 150)
  tts_first_audio_ms!: number | null;
  @ms(
    "Milliseconds from the end of the caller's speech to the first audio of the reply sent to the caller",
    920,
  )
  voice_to_voice_ms!: number | null;
}

export const LATENCY_EXAMPLE: MessageLatencyResponse = {
  endpoint_ms: 180,
  stt_ms: 240,
  model_first_token_ms: 310,
  tts_first_audio_ms: 150,
  voice_to_voice_ms: 920,
};

/** The `latency` field of a message answer: the stored timing's five steps, or null. */
export const messageLatency = (stored: MessageLatency | null | undefined): MessageLatencyResponse | null =>
  stored
    ? (Object.fromEntries(
        LATENCY_FIELDS.map((f) => [f, stored[f] ?? null]),
      ) as unknown as MessageLatencyResponse)
    : null;

/** The `latency` property of every message answer. */
export const LatencyProperty = () =>
  ApiProperty({
    type: MessageLatencyResponse,
    nullable: true,
    example: LATENCY_EXAMPLE,
    description:
      "An agent's reply on a call (`phone`, `whatsapp_call`, `web`): how long each step of the voice turn took, " +
      'stored shortly after the reply starts playing (null until then). Null on customer, system and text-channel ' +
      'messages.',
  });

export class MessageResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ format: 'uuid' }) conversation_uuid!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) session_uuid!: string | null;
  @ApiProperty({ enum: ['inbound', 'outbound'], example: 'inbound' }) direction!: string;
  @ApiProperty({ enum: ['customer', 'agent', 'system'], example: 'customer' }) sender!: string;
  @ApiProperty({ example: 'text' }) message_type!: string;
  @ApiProperty({ example: 'Where is my order?' }) content!: string;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ required: false, description: 'present (true) on an agent reply the customer spoke over' })
  interrupted?: boolean;
  @LatencyProperty() latency!: MessageLatencyResponse | null;

  static of(m: Message): MessageResponse {
    return {
      ...(m.interrupted ? { interrupted: true } : {}),
      uuid: m.id,
      conversation_uuid: m.conversationId,
      session_uuid: m.sessionId,
      direction: m.direction,
      sender: m.sender,
      message_type: m.messageType,
      content: m.content,
      created_at: m.createdAt.toISOString(),
      latency: messageLatency(m.latency),
    };
  }
}

export class SessionContactResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
}

export class SessionResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ format: 'uuid' }) conversation_uuid!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) agent_uuid!: string | null;
  @ApiProperty({ type: SessionContactResponse, nullable: true }) contact!: SessionContactResponse | null;
  @ApiProperty({ enum: CHANNELS, example: 'chat' }) channel!: string;
  @ApiProperty({ enum: ['active', 'ended'], example: 'ended' }) status!: string;
  @ApiProperty({ example: TS }) started_at!: string;
  @ApiProperty({ example: TS }) last_activity_at!: string;
  @ApiProperty({ type: String, example: TS, nullable: true }) ended_at!: string | null;
  @ApiProperty({ enum: ['timeout', 'closed', 'call_ended'], nullable: true, example: 'timeout' })
  end_reason!: string | null;
  @ApiProperty({ type: String, example: TS, nullable: true }) evaluated_at!: string | null;
  @ApiProperty({ example: 'The customer asked about an order and got the tracking link.', nullable: true })
  summary!: string | null;
  @ApiProperty({ example: 4 }) message_count!: number;

  static of(s: Plain<Session>): SessionResponse {
    return {
      uuid: s.id,
      conversation_uuid: s.conversationId,
      agent_uuid: s.agentId,
      contact: s.contactId ? { uuid: s.contactId } : null,
      channel: s.channel,
      status: s.status,
      started_at: s.startedAt.toISOString(),
      last_activity_at: s.lastActivityAt.toISOString(),
      ended_at: iso(s.endedAt),
      end_reason: s.endReason,
      evaluated_at: iso(s.evaluatedAt),
      summary: s.summary,
      message_count: s.messageCount,
    };
  }
}

export class TurnActionDestination {
  @ApiProperty({ type: String, example: 'extension', nullable: true }) type!: string | null;
  @ApiProperty({ type: String, example: '200', nullable: true }) value!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) agent_uuid!: string | null;
}

export class TurnAction {
  @ApiProperty({
    enum: ['guard', 'routing', 'intent'],
    example: 'guard',
    description:
      'intent: an intent action handed the conversation to another agent (rule_uuid is the intent)',
  })
  kind!: 'guard' | 'routing' | 'intent';
  @ApiProperty({
    example: 'forward',
    description: 'guards: forward or end_conversation; routing: the transfer type',
  })
  type!: string;
  @ApiProperty({ format: 'uuid' }) rule_uuid!: string;
  @ApiProperty({ type: String, example: 'Let me connect you to a colleague.', nullable: true }) say!:
    string | null;
  @ApiProperty({ type: TurnActionDestination, nullable: true }) destination!: TurnActionDestination | null;
}

export class TurnResponse {
  @ApiProperty({ type: MessageResponse }) message!: MessageResponse;
  @ApiProperty({ type: MessageResponse, nullable: true, description: "the agent's answer, absent when none" })
  reply!: MessageResponse | null;
  @ApiProperty({
    type: TurnAction,
    nullable: true,
    description: 'a guard or routing rule fired, or an intent handed the conversation over',
  })
  action!: TurnAction | null;
  @ApiPropertyOptional({ example: 'No language model is configured (LLM_BASE_URL)', nullable: true })
  reply_unavailable_reason!: string | null;
  @ApiProperty({ type: ConversationResponse }) conversation!: ConversationResponse;
}
