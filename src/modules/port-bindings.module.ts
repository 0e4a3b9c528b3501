import { Global, Module } from '@nestjs/common';
import { AgentsModule } from '@/modules/agents/agents.module';
import { AgentWebhooksService } from '@/modules/agents/collections/agent-webhooks.service';
import { AGENT_WEBHOOK_TARGETS } from '@/modules/events/agent-webhook-targets.port';
import { MessagingModule } from '@/modules/messaging/messaging.module';
import { MessagingTemplateSender } from '@/modules/messaging/outbound-template-sender';
import { OUTBOUND_TEMPLATE_SENDER } from '@/modules/outbound/template-sender.port';

/**
 * Where the modules meet through ports, in one place. A lower module declares a port (a token and an interface)
 * and injects it; a higher module implements it; this module binds the two. It is global, so the lower module
 * gets the port without importing the higher one (that import would run back up the layers), and it is imported
 * by the application module alone.
 */
@Global()
@Module({
  imports: [AgentsModule, MessagingModule],
  providers: [
    // The events module delivers to an agent's webhooks, which the agents module holds.
    { provide: AGENT_WEBHOOK_TARGETS, useExisting: AgentWebhooksService },
    // Outbound's WhatsApp templates (campaigns, `send_message` tasks), sent by messaging.
    { provide: OUTBOUND_TEMPLATE_SENDER, useExisting: MessagingTemplateSender },
  ],
  exports: [AGENT_WEBHOOK_TARGETS, OUTBOUND_TEMPLATE_SENDER],
})
export class PortBindingsModule {}
