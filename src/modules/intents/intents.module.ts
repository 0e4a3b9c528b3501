import { Module } from '@nestjs/common';
import { AgentsModule } from '@/modules/agents/agents.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { KnowledgeModule } from '@/modules/knowledge/knowledge.module';
import { IntentActionsController } from './intent-actions.controller';
import { IntentActionsService } from './intent-actions.service';
import { ActionExecutor } from './runtime/action-executor.service';
import { BuiltinToolRunner } from './runtime/builtin-tool-runner.service';
import { TurnIntentActions } from './runtime/turn-intent-actions';
import { IntentToolsModule } from './tools/intent-tools.module';

/**
 * Intents' actions: their configuration (`/agents/{uuid}/intents/{intentUuid}/event`) and running one when the
 * model calls its intent in a turn. The runtime module's tool loop and tool catalog reach them through its
 * INTENT_ACTIONS port (`runtime/tools/intent-actions.port.ts`), bound to TurnIntentActions by PortBindingsModule.
 * Flows plug in through FLOW_STARTER (flow-starter.port.ts), calls' keypad through CALL_KEYPAD.
 */
@Module({
  imports: [IntentToolsModule, AgentsModule, ContactsModule, KnowledgeModule],
  controllers: [IntentActionsController],
  providers: [IntentActionsService, ActionExecutor, BuiltinToolRunner, TurnIntentActions],
  exports: [TurnIntentActions],
})
export class IntentsModule {}
