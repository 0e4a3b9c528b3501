import { Global, Module } from '@nestjs/common';
import { AgentsModule } from '@/modules/agents/agents.module';
import { AgentWebhooksService } from '@/modules/agents/collections/agent-webhooks.service';
import { TOOL_DRY_RUN } from '@/modules/agents/rules/tool-dry-run.port';
import { TURN_TOOLS } from '@/modules/conversations/turn-tools.port';
import { AGENT_WEBHOOK_TARGETS } from '@/modules/events/agent-webhook-targets.port';
import { FlowStarter } from '@/modules/flows/flow-starter.service';
import { FlowsModule } from '@/modules/flows/flows.module';
import { FLOW_STARTER } from '@/modules/intents/flow-starter.port';
import { IntentsModule } from '@/modules/intents/intents.module';
import { ToolLoop } from '@/modules/intents/runtime/tool-loop.service';
import { IntentToolsModule } from '@/modules/intents/tools/intent-tools.module';
import { ToolCatalog } from '@/modules/intents/tools/tool-catalog.service';
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
  imports: [AgentsModule, IntentToolsModule, IntentsModule, MessagingModule, FlowsModule],
  providers: [
    // The events module delivers to an agent's webhooks, which the agents module holds.
    { provide: AGENT_WEBHOOK_TARGETS, useExisting: AgentWebhooksService },
    // The rule test asks the intents' tool catalog which tool an utterance would call.
    { provide: TOOL_DRY_RUN, useExisting: ToolCatalog },
    // A conversation turn offers the agent's intents to the model as tools and runs them (the intents' tool loop).
    { provide: TURN_TOOLS, useExisting: ToolLoop },
    // Outbound's WhatsApp templates (campaigns, `send_message` tasks), sent by messaging.
    { provide: OUTBOUND_TEMPLATE_SENDER, useExisting: MessagingTemplateSender },
    // An intent's `scenario` action starts an automation flow.
    { provide: FLOW_STARTER, useExisting: FlowStarter },
  ],
  exports: [AGENT_WEBHOOK_TARGETS, TOOL_DRY_RUN, TURN_TOOLS, OUTBOUND_TEMPLATE_SENDER, FLOW_STARTER],
})
export class PortBindingsModule {}
