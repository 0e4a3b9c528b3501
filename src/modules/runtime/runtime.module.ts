import { Module } from '@nestjs/common';
import { AgentsModule } from '@/modules/agents/agents.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { EventsModule } from '@/modules/events/events.module';
import { LogsModule } from '@/modules/logs/logs.module';
import { UsageModule } from '@/modules/usage/usage.module';
import { LlmModule } from '@/providers/llm/llm.module';
import { ConversationReplyService } from './conversation-reply.service';
import { ConversationTurnsController } from './conversation-turns.controller';
import { ConversationTurnsService } from './conversation-turns.service';
import { IntentCallRecorder } from './tools/intent-call-recorder';
import { ToolCatalog } from './tools/tool-catalog.service';
import { ToolLoop } from './tools/tool-loop.service';
import { TurnRuntime } from './turn-runtime.service';

/**
 * The turn pipeline shared by text conversations, SMS and WhatsApp, phone and web calls: a customer's turn stored,
 * the rules, the reply's prompt, the model with the agent's tools (the tool loop and the tool catalog, `tools/`),
 * the reply stored. The conversations, their messages and sessions are the conversations module's data, written
 * through its services; an intent's deployed action is the intents module's, read and run through the INTENT_ACTIONS
 * port (`tools/intent-actions.port.ts`). Callers take a turn through TurnRuntime, as a stream of events;
 * ConversationTurnsService is the pipeline itself. ToolCatalog is the agents module's TOOL_DRY_RUN port.
 */
@Module({
  imports: [ConversationsModule, AgentsModule, EventsModule, LogsModule, LlmModule, UsageModule],
  controllers: [ConversationTurnsController],
  providers: [
    ConversationTurnsService,
    ConversationReplyService,
    TurnRuntime,
    ToolLoop,
    ToolCatalog,
    IntentCallRecorder,
  ],
  exports: [TurnRuntime, ConversationTurnsService, ToolCatalog],
})
export class RuntimeModule {}
