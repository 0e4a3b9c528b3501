import { Module } from '@nestjs/common';
import { AgentsModule } from '@/modules/agents/agents.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { EventsModule } from '@/modules/events/events.module';
import { KnowledgeModule } from '@/modules/knowledge/knowledge.module';
import { LogsModule } from '@/modules/logs/logs.module';
import { LlmModule } from '@/providers/llm/llm.module';
import { IntentActionsController } from './intent-actions.controller';
import { IntentActionsService } from './intent-actions.service';
import { ActionExecutor } from './runtime/action-executor.service';
import { BuiltinToolRunner } from './runtime/builtin-tool-runner.service';
import { IntentCallRecorder } from './runtime/intent-call-recorder';
import { ToolLoop } from './runtime/tool-loop.service';
import { IntentToolsModule } from './tools/intent-tools.module';

/**
 * Intents at runtime: their actions (`/agents/{uuid}/intents/{intentUuid}/event`) and the tool loop the
 * conversation turns call through TURN_TOOLS (the runtime module's port, bound to ToolLoop by
 * PortBindingsModule). Flows plug in through FLOW_STARTER (flow-starter.port.ts).
 */
@Module({
  imports: [
    IntentToolsModule,
    AgentsModule,
    ContactsModule,
    EventsModule,
    KnowledgeModule,
    LogsModule,
    LlmModule,
  ],
  controllers: [IntentActionsController],
  providers: [IntentActionsService, ActionExecutor, BuiltinToolRunner, IntentCallRecorder, ToolLoop],
  exports: [ToolLoop],
})
export class IntentsModule {}
