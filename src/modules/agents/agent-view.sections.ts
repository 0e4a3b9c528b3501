import type { AgentChannelResponse, AgentPhoneNumberResponse, WebhookResponse } from './dto/agent.response';

/** What an agent is bound to: its numbers (with the channels it serves on each) and its channel list. */
export interface AgentBindings {
  phone_numbers: AgentPhoneNumberResponse[];
  channels: AgentChannelResponse[];
}

/**
 * A part of the whole agent that another module owns. The owner gives a sub-select correlated with the agent row
 * `a` (`agents a`), answering one JSON value and filtering its own tables on `a.workspace_id`, and turns that value
 * into its part of the answer. The agents read model only places the text in its statement: a whole agent stays
 * one round trip with one plan, while each table and its SQL stay in the repository of the module that owns it.
 */
export interface AgentViewSection<Out> {
  readonly subSelect: string;
  toResponse(json: unknown): Out;
}

/** Numbers and channels of an agent (implemented by the phone-numbers module). */
export abstract class AgentBindingsSection implements AgentViewSection<AgentBindings> {
  abstract readonly subSelect: string;
  abstract toResponse(json: unknown): AgentBindings;
}

/** The agent's webhooks (implemented by the events module). */
export abstract class AgentWebhooksSection implements AgentViewSection<WebhookResponse[]> {
  abstract readonly subSelect: string;
  abstract toResponse(json: unknown): WebhookResponse[];
}
