import { ApiProperty } from '@nestjs/swagger';
import { AGENT_STATUSES } from '../agent.entity';
import { DETECTION_MODES, GUARD_ACTIONS, RULE_CHANNELS } from '../collections/agent-rules.entity';
import { WebhookResponse } from '@/modules/events/dto/webhook.dto';
import {
  AgentChannelResponse,
  AgentPhoneNumberResponse,
} from '@/modules/phone-numbers/dto/agent-bindings.response';

const TS = '2026-11-22T04:17:55.123Z';

export class NoteResponse {
  @ApiProperty({ format: 'uuid', example: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b' }) uuid!: string;
  @ApiProperty({ example: 'Always greet the customer by name.' }) content!: string;
  @ApiProperty({ example: 1 }) order!: number;
}

export class TrainingResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'How much is the premium plan?' }) content!: string;
  @ApiProperty({ type: String, example: 'pricing', nullable: true }) intent!: string | null;
  @ApiProperty({ type: String, example: 'The premium plan is 49 EUR a month.', nullable: true }) response!:
    string | null;
}

export class ProcedureStepResponse {
  @ApiProperty({ example: 1 }) order!: number;
  @ApiProperty({ type: String, example: 'Ask for the order number', nullable: true }) description!:
    string | null;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    description: 'an intent of this agent: the step is a tool call',
  })
  intent_uuid!: string | null;
}

export class ProcedureResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'Process a refund' }) name!: string;
  @ApiProperty({ example: 'When the customer asks for their money back', nullable: true }) description!:
    string | null;
  @ApiProperty({ type: [ProcedureStepResponse] }) steps!: ProcedureStepResponse[];
}

export class IntentWebhookResponse {
  @ApiProperty({ example: 'https://hooks.example.com/orders' }) url!: string;
  @ApiProperty({ type: String, example: 'tok_123', nullable: true }) auth_token!: string | null;
}

export class IntentParameterResponse {
  @ApiProperty({ example: 'order_number' }) key!: string;
  @ApiProperty({ type: String, example: '', nullable: true }) default!: string | null;
  @ApiProperty({ example: 'string' }) type!: string;
  @ApiProperty({ example: true }) required!: boolean;
}

export class IntentResponse {
  @ApiProperty({ format: 'uuid' }) intent_uuid!: string;
  @ApiProperty({ example: 'check_order_status' }) key!: string;
  @ApiProperty({ example: 'Check order status' }) name!: string;
  @ApiProperty({ example: 'The customer wants to know where the order is', nullable: true }) description!:
    string | null;
  @ApiProperty({ type: String, example: 'Offer tracking by SMS', nullable: true }) recommendation_actions!:
    string | null;
  @ApiProperty({ example: 0.7, minimum: 0, maximum: 1 }) confidence_threshold!: number;
  @ApiProperty({ example: false }) is_system!: boolean;
  @ApiProperty({ example: false }) intent_llm_handle_by_response!: boolean;
  @ApiProperty({ type: IntentWebhookResponse, nullable: true }) webhook!: IntentWebhookResponse | null;
  @ApiProperty({ type: [IntentParameterResponse] }) parameters!: IntentParameterResponse[];
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;
}

/** Agent webhooks answer as workspace webhooks do (one schema in the document for both). */
export { WebhookResponse };

export class RoutingRuleResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ enum: DETECTION_MODES, example: 'both' }) detection_mode!: string;
  @ApiProperty({ type: String, example: 'billing', nullable: true }) trigger_keyword!: string | null;
  @ApiProperty({ type: String, example: 'Billing', nullable: true }) department_name!: string | null;
  @ApiProperty({ type: [String], example: ['I have a question about my invoice', 'talk to billing'] })
  phrases!: string[];
  @ApiProperty({ example: 'The customer wants to talk about invoices or payments', nullable: true })
  ai_prompt!: string | null;
  @ApiProperty({ type: String, example: 'Let me transfer you to billing.', nullable: true }) voice_response!:
    string | null;
  @ApiProperty({ example: 'Billing is not available right now.', nullable: true }) voice_on_error!:
    string | null;
  @ApiProperty({ example: 'You are now connected to billing.', nullable: true }) voice_on_success!:
    string | null;
  @ApiProperty({ type: String, example: 'extension', nullable: true }) destination_type!: string | null;
  @ApiProperty({ type: String, example: '201', nullable: true }) destination!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) destination_agent_uuid!: string | null;
  @ApiProperty({ type: String, example: 'transfer_call', nullable: true }) transfer_type!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} }) transfer_config!: Record<
    string,
    unknown
  >;
  @ApiProperty({ example: 1, description: 'lower is evaluated first; ties by insertion' }) priority!: number;
  @ApiProperty({ example: true }) is_active!: boolean;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;
}

export class GuardRuleResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ type: String, example: 'Angry customer', nullable: true }) name!: string | null;
  @ApiProperty({ example: 'The customer is angry or asks for a human', nullable: true }) when_condition!:
    string | null;
  @ApiProperty({ type: [String], example: ['I want to speak to a human', 'this is ridiculous'] })
  example_phrases!: string[];
  @ApiProperty({ enum: GUARD_ACTIONS, example: 'forward' }) then_action!: string;
  @ApiProperty({
    enum: RULE_CHANNELS,
    isArray: true,
    example: ['phone'],
    description: 'empty: every channel',
  })
  selected_channels!: string[];
  @ApiProperty({ example: 'I will connect you with a colleague.', nullable: true }) say_before_forwarding!:
    string | null;
  @ApiProperty({ type: String, example: 'Goodbye.', nullable: true }) say_before_end!: string | null;
  @ApiProperty({ type: String, example: 'extension', nullable: true }) destination_type!: string | null;
  @ApiProperty({ type: String, example: '100', nullable: true }) destination!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) destination_agent_uuid!: string | null;
  @ApiProperty({ example: true }) is_active!: boolean;
  @ApiProperty({ example: false }) is_default!: boolean;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;
}

export class AgentSettingsResponse {
  @ApiProperty({ type: 'object', additionalProperties: true, example: { voice_id: 'alloy' } }) voice!: Record<
    string,
    unknown
  >;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { max_reply_chars: 600 } })
  text!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} }) memorize!: Record<
    string,
    unknown
  >;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} }) evaluation!: Record<
    string,
    unknown
  >;
}

export class AgentAppointmentsResponse {
  @ApiProperty({ example: false }) scheduling_enabled!: boolean;
  @ApiProperty({ example: false }) scheduling_randomly!: boolean;
}

export class AgentResponse {
  @ApiProperty({ format: 'uuid', example: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b' }) agent_uuid!: string;
  @ApiProperty({ format: 'uuid', description: 'the same as agent_uuid' }) uuid!: string;
  @ApiProperty({ example: 'Sales assistant' }) name!: string;
  @ApiProperty({ type: String, example: 'Answers inbound sales calls', nullable: true }) description!:
    string | null;
  @ApiProperty({ type: String, example: 'Acme Inc.', nullable: true }) company_name!: string | null;
  @ApiProperty({ type: String, example: 'Sales representative', nullable: true }) role!: string | null;
  @ApiProperty({ type: String, example: 'Book demos', nullable: true }) objective!: string | null;
  @ApiProperty({ type: String, example: 'friendly', nullable: true }) tone!: string | null;
  @ApiProperty({ type: String, nullable: true }) behavior_guidelines!: string | null;
  @ApiProperty({ type: String, nullable: true }) company_service!: string | null;
  @ApiProperty({ type: String, nullable: true }) topic!: string | null;
  @ApiProperty({ type: String, example: 'short', nullable: true }) length_detail!: string | null;
  @ApiProperty({ type: String, nullable: true }) interest_of_product!: string | null;
  @ApiProperty({ type: String, nullable: true }) negative_response!: string | null;
  @ApiProperty({ type: String, nullable: true }) custom_prompt!: string | null;
  @ApiProperty({ type: String, example: 'en', nullable: true }) language!: string | null;
  @ApiProperty({ type: String, example: 'normal', nullable: true }) speed!: string | null;
  @ApiProperty({ type: String, example: 'Europe/Paris', nullable: true }) timezone!: string | null;
  @ApiProperty({ type: String, example: 'https://llm.example.com/v1', nullable: true }) custom_llm_url!:
    string | null;
  @ApiProperty({ type: String, nullable: true }) recommendations!: string | null;
  @ApiProperty({ enum: AGENT_STATUSES, example: 'pending' }) status!: string;
  @ApiProperty({ example: false }) appointment_scheduling_enabled!: boolean;
  @ApiProperty({ example: false }) appointment_scheduling_randomly!: boolean;
  @ApiProperty({ type: AgentSettingsResponse }) settings!: AgentSettingsResponse;
  @ApiProperty({ type: [NoteResponse] }) guidelines!: NoteResponse[];
  @ApiProperty({ type: [NoteResponse] }) notes!: NoteResponse[];
  @ApiProperty({ type: [ProcedureResponse] }) procedures!: ProcedureResponse[];
  @ApiProperty({ type: [TrainingResponse] }) training!: TrainingResponse[];
  @ApiProperty({ type: [IntentResponse] }) intents!: IntentResponse[];
  @ApiProperty({ type: [WebhookResponse] }) webhooks!: WebhookResponse[];
  @ApiProperty({ type: AgentAppointmentsResponse }) appointments!: AgentAppointmentsResponse;
  @ApiProperty({ type: [RoutingRuleResponse] }) routing_rules!: RoutingRuleResponse[];
  @ApiProperty({ type: [GuardRuleResponse] }) guard_rules!: GuardRuleResponse[];
  @ApiProperty({ type: [AgentPhoneNumberResponse] }) phone_numbers!: AgentPhoneNumberResponse[];
  @ApiProperty({ type: [AgentChannelResponse] }) channels!: AgentChannelResponse[];
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;
}

export class FlowCatalogAgentResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'Sales assistant' }) name!: string;
  @ApiProperty({ type: String, example: 'Sales representative', nullable: true }) role!: string | null;
  @ApiProperty({ example: 'ready' }) status!: string;
}
