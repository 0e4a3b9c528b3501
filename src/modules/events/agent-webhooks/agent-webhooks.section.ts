import { Injectable } from '@nestjs/common';
import { AgentWebhooksSection } from '@/modules/agents/agent-view.sections';
import type { WebhookResponse } from '../dto/webhook.dto';
import { AgentWebhooksRepository } from './agent-webhooks.repository';

/** The agent's webhooks in the whole-agent read; the sub-select already answers the API shape. */
@Injectable()
export class AgentWebhooksView extends AgentWebhooksSection {
  readonly subSelect = AgentWebhooksRepository.AGENT_VIEW_SUB_SELECT;

  toResponse(json: unknown): WebhookResponse[] {
    return json as WebhookResponse[];
  }
}
