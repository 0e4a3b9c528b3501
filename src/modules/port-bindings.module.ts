import { DynamicModule, Module, Provider } from '@nestjs/common';
import { AgentsModule } from '@/modules/agents/agents.module';
import { AgentWebhooksService } from '@/modules/agents/collections/agent-webhooks.service';
import { TOOL_DRY_RUN } from '@/modules/agents/rules/tool-dry-run.port';
import { CALL_END_LISTENERS, CallEndListeners } from '@/modules/calls/call-end.port';
import { CallKeypad } from '@/modules/calls/runtime/call-keypad.service';
import { CALL_MEDIA } from '@/modules/calls/call-media.port';
import { CallsModule } from '@/modules/calls/calls.module';
import { AGENT_WEBHOOK_TARGETS } from '@/modules/events/agent-webhook-targets.port';
import { OUTBOX_CONSUMERS } from '@/modules/events/outbox-consumers.port';
import { FlowStarter } from '@/modules/flows/flow-starter.service';
import { FlowsModule } from '@/modules/flows/flows.module';
import { FlowDispatcher } from '@/modules/flows/triggers/flow-dispatcher';
import { FLOW_STARTER } from '@/modules/intents/flow-starter.port';
import { IntentsModule } from '@/modules/intents/intents.module';
import { CALL_KEYPAD } from '@/modules/intents/runtime/call-keypad.port';
import { TurnIntentActions } from '@/modules/intents/runtime/turn-intent-actions';
import { MessagingModule } from '@/modules/messaging/messaging.module';
import { MessagingTemplateSender } from '@/modules/messaging/outbound-template-sender';
import { CampaignSlotWake } from '@/modules/outbound/engine/campaign-slot-wake';
import { OutboundModule } from '@/modules/outbound/outbound.module';
import { OUTBOUND_TEMPLATE_SENDER } from '@/modules/outbound/engine/template-sender.port';
import { assertPortsBound } from '@/modules/ports';
import { RuntimeModule } from '@/modules/runtime/runtime.module';
import { INTENT_ACTIONS } from '@/modules/runtime/tools/intent-actions.port';
import { ToolCatalog } from '@/modules/runtime/tools/tool-catalog.service';
import { MediaSessions } from '@/modules/voice/media/media-sessions';
import { VoiceModule } from '@/modules/voice/voice.module';

/** Each port a lower module declares (`declarePort`), bound to the higher module's implementation. */
export const PORT_BINDINGS: Provider[] = [
  // The events module delivers to an agent's webhooks, which the agents module holds.
  { provide: AGENT_WEBHOOK_TARGETS, useExisting: AgentWebhooksService },
  // Webhook delivery's dispatcher hands every claimed outbox batch to these readers in its claiming transaction:
  // flows' triggers (the queued executions commit with the claim). The claim runs only where the workers run.
  {
    provide: OUTBOX_CONSUMERS,
    inject: [FlowDispatcher],
    useFactory: (flows: FlowDispatcher) => [flows],
  },
  // The rule test asks the runtime's tool catalog which tool an utterance would call.
  { provide: TOOL_DRY_RUN, useExisting: ToolCatalog },
  // A turn's tools read the agent's deployed intent actions and run the one the model calls (the intents module).
  { provide: INTENT_ACTIONS, useExisting: TurnIntentActions },
  // An intent's `scenario` action starts an automation flow.
  { provide: FLOW_STARTER, useExisting: FlowStarter },
  // The intents' `send_dtmf` tool presses keys on the call.
  { provide: CALL_KEYPAD, useExisting: CallKeypad },
  // A call's agent speaks through the voice module's media sessions (a Twilio stream, a browser's socket).
  { provide: CALL_MEDIA, useExisting: MediaSessions },
  // A call of a task that ends settles the task and frees its campaign's slot (outbound). The listeners place calls
  // themselves, so the lifecycle reads them from CallEndListeners, which this binding fills.
  {
    provide: CALL_END_LISTENERS,
    inject: [CallEndListeners, CampaignSlotWake],
    useFactory: (listeners: CallEndListeners, wake: CampaignSlotWake) => listeners.bind([wake]),
  },
  // Outbound's WhatsApp templates (campaigns, `send_message` tasks), sent by messaging.
  { provide: OUTBOUND_TEMPLATE_SENDER, useExisting: MessagingTemplateSender },
];

const tokenOf = (binding: Provider): unknown => ('provide' in binding ? binding.provide : binding);

/**
 * Where the modules meet through ports, in one place. A lower module declares a port (a token and an interface,
 * `declarePort` in `modules/ports.ts`) and injects it, required; a higher module implements it; this module binds
 * the two. It is global, so the lower module gets the port without importing the higher one (that import would run
 * back up the layers), and it is imported by the application module alone. `forRoot` refuses to build it while a
 * declared port has no binding: the start stops naming the port and the module that declares it.
 */
@Module({})
export class PortBindingsModule {
  static forRoot(bindings: Provider[] = PORT_BINDINGS): DynamicModule {
    const tokens = bindings.map(tokenOf);
    assertPortsBound(tokens);
    return {
      module: PortBindingsModule,
      global: true,
      imports: [
        AgentsModule,
        RuntimeModule,
        IntentsModule,
        CallsModule,
        VoiceModule,
        OutboundModule,
        MessagingModule,
        FlowsModule,
      ],
      providers: bindings,
      exports: tokens as symbol[],
    };
  }
}
