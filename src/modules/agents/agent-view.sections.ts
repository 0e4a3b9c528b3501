import type { WebhookResponse } from './dto/agent.response';

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

/** The agent's webhooks (implemented by the events module). */
export abstract class AgentWebhooksSection implements AgentViewSection<WebhookResponse[]> {
  abstract readonly subSelect: string;
  abstract toResponse(json: unknown): WebhookResponse[];
}
