import { ApiProperty } from '@nestjs/swagger';
import { UsageProperty, type UsageResponse } from '@/modules/usage/dto/usage.response';
import type { CallViewRow } from '../calls.repository';
import { VOICEMAIL_ACTIONS, type VoicemailPolicy } from '@/modules/agents/voicemail-policy';
import { ANSWERED_BY, type MachineDetection } from '../runtime/voicemail';

const TS = '2026-11-20T10:00:00.000Z';
const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

export class CallAgentRef {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'Sales assistant' }) name!: string;
}

export class CallContactRef {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ type: String, nullable: true }) surname!: string | null;
  @ApiProperty({ type: String, nullable: true }) phone_number!: string | null;
  @ApiProperty({ type: String, nullable: true }) email!: string | null;
}

export class CallErrorDto {
  @ApiProperty({ example: 'SANDBOX_UNREACHABLE' }) code!: string;
  @ApiProperty() message!: string;
}

export class ForwardedToDto {
  @ApiProperty({ enum: ['phone_number', 'extension', 'agent'] }) type!: string;
  @ApiProperty({ type: String, nullable: true }) value!: string | null;
  @ApiProperty({ format: 'uuid', nullable: true }) agent_uuid!: string | null;
}

export class VoicemailPolicyResponse {
  @ApiProperty({ description: 'answering-machine detection runs on the call' }) detection!: boolean;
  @ApiProperty({ enum: VOICEMAIL_ACTIONS, description: 'what a machine gets' }) action!: string;
  @ApiProperty({ type: String, nullable: true, description: 'said after the beep (leave_message)' })
  message!: string | null;
  @ApiProperty({ description: "a task's call that reached a machine is tried again" })
  retry_on_voicemail!: boolean;
}

export class MachineDetectionResponse {
  @ApiProperty({ enum: ['twilio', 'sandbox', 'transcript'] }) source!: string;
  @ApiProperty({
    example: 'machine_end_beep',
    description: "the provider's AnsweredBy, or the greeting phrase heard (transcript)",
  })
  result!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'en',
    description: "the phrase's language (transcript)",
  })
  language!: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 4200,
    description: "the provider's MachineDetectionDuration",
  })
  duration_ms!: number | null;
  @ApiProperty({ example: TS }) detected_at!: string;
}

export class CallResponse {
  @ApiProperty({ format: 'uuid', description: 'the same as conversation_uuid' }) uuid!: string;
  @ApiProperty({ format: 'uuid' }) conversation_uuid!: string;
  @ApiProperty({ format: 'uuid', nullable: true }) session_uuid!: string | null;
  @ApiProperty({ type: CallAgentRef, nullable: true }) agent!: CallAgentRef | null;
  @ApiProperty({ enum: ['AI', 'Human'] }) handled_by!: string;
  @ApiProperty({ enum: ['Inbound', 'Outbound'] }) direction!: string;
  @ApiProperty({ enum: ['phone', 'whatsapp_call', 'web'] }) communication!: string;
  @ApiProperty({ example: 'in-progress' }) status!: string;
  @ApiProperty({ nullable: true, example: 'customer_hangup' }) end_reason!: string | null;
  @ApiProperty({ type: CallErrorDto, nullable: true }) error!: CallErrorDto | null;
  @ApiProperty({ example: 42, description: 'whole seconds from answered_at to ended_at' }) duration!: number;
  @ApiProperty({ example: '+14155550100' }) from_number!: string;
  @ApiProperty({ example: '+14155552671' }) to_number!: string;
  @ApiProperty({ format: 'uuid', nullable: true }) phone_number_uuid!: string | null;
  @ApiProperty({ type: CallContactRef, nullable: true }) contact!: CallContactRef | null;
  @ApiProperty({ format: 'uuid', nullable: true }) campaign_uuid!: string | null;
  @ApiProperty({ format: 'uuid', nullable: true }) task_uuid!: string | null;
  @ApiProperty({ format: 'uuid', nullable: true }) listing_uuid!: string | null;
  @ApiProperty({ example: 'sandbox' }) provider!: string;
  @ApiProperty({ nullable: true, example: 'SB0123...' }) provider_call_id!: string | null;
  @ApiProperty() is_simulation!: boolean;
  @ApiProperty() muted!: boolean;
  @ApiProperty({ type: ForwardedToDto, nullable: true }) forwarded_to!: ForwardedToDto | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) variables!: Record<
    string,
    string
  >;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true }) recording!: Record<
    string,
    unknown
  > | null;
  @ApiProperty({
    enum: ANSWERED_BY,
    nullable: true,
    description:
      'who answered an outbound call with answering-machine detection on: null until detected (and on calls without it)',
  })
  answered_by!: string | null;
  @ApiProperty({
    type: VoicemailPolicyResponse,
    nullable: true,
    description: 'the answering-machine policy the outbound call was placed with; null on inbound calls',
  })
  voicemail!: VoicemailPolicyResponse | null;
  @ApiProperty({ type: MachineDetectionResponse, nullable: true, description: 'how answered_by was decided' })
  machine_detection!: MachineDetectionResponse | null;
  @ApiProperty({ nullable: true, example: '/api/v1/calls/{uuid}/live' }) listen_url!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the session summary once evaluated' })
  analysis!: string | null;
  @ApiProperty({ example: TS }) timestamp!: string;
  @ApiProperty({ nullable: true, example: TS }) answered_at!: string | null;
  @ApiProperty({ nullable: true, example: TS }) ended_at!: string | null;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;
  @UsageProperty(
    'Read through `GET /calls/{uuid}` only: model tokens, speech, call minutes by leg and tool calls so far, and ' +
      "their cost under the workspace's price table (null without one).",
  )
  usage?: UsageResponse;

  static of(r: CallViewRow): CallResponse {
    const live = ['queued', 'ringing', 'in-progress'].includes(r.status);
    const duration =
      r.answered_at && r.ended_at
        ? Math.max(0, Math.floor((new Date(r.ended_at).getTime() - new Date(r.answered_at).getTime()) / 1000))
        : 0;
    return {
      uuid: r.id,
      conversation_uuid: r.id,
      session_uuid: r.session_id,
      agent: r.agent_id ? { uuid: r.agent_id, name: r.agent_name ?? '' } : null,
      handled_by: r.handled_by,
      direction: r.direction,
      communication: r.channel,
      status: r.status,
      end_reason: r.end_reason,
      error: r.error,
      duration,
      from_number: r.from_number,
      to_number: r.to_number,
      phone_number_uuid: r.phone_number_id,
      contact: r.contact_id
        ? {
            uuid: r.contact_id,
            name: r.c_name,
            surname: r.c_surname,
            phone_number: r.c_phone,
            email: r.c_email,
          }
        : null,
      campaign_uuid: r.campaign_id,
      task_uuid: r.task_id,
      listing_uuid: r.listing_id,
      provider: r.provider,
      provider_call_id: r.provider_call_id,
      is_simulation: r.is_simulation,
      muted: r.muted,
      forwarded_to: r.forwarded_to as ForwardedToDto | null,
      variables: r.variables,
      metadata: r.metadata,
      recording: r.recording,
      answered_by: r.answered_by,
      voicemail: (r.voicemail as VoicemailPolicy | null) ?? null,
      machine_detection: (r.machine_detection as MachineDetection | null) ?? null,
      listen_url: live ? `/api/v1/calls/${r.id}/live` : null,
      analysis: r.analysis,
      timestamp: iso(r.created_at)!,
      answered_at: iso(r.answered_at),
      ended_at: iso(r.ended_at),
      created_at: iso(r.created_at)!,
      updated_at: iso(r.updated_at)!,
    };
  }
}

export class CallActionResponse {
  @ApiProperty({ example: 'say' }) action!: string;
  @ApiProperty({ format: 'uuid' }) action_uuid!: string;
  @ApiProperty({ format: 'uuid' }) conversation_uuid!: string;
  @ApiProperty({ example: TS }) dispatched_at!: string;
  @ApiProperty({ required: false, description: 'mute and unmute: the call is muted now' }) muted?: boolean;
  @ApiProperty({ required: false, example: '1w2#', description: 'dtmf: the keys pressed' }) digits?: string;
}
