import { Module } from '@nestjs/common';
import { AgentsModule } from '@/modules/agents/agents.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { UsageModule } from '@/modules/usage/usage.module';
import { LlmModule } from '@/providers/llm/llm.module';
import { ConversationReplyService } from './conversation-reply.service';
import { ConversationTurnsController } from './conversation-turns.controller';
import { ConversationTurnsService } from './conversation-turns.service';
import { TurnRuntime } from './turn-runtime.service';

/**
 * The turn pipeline shared by text conversations, SMS and WhatsApp, phone and web calls: a customer's turn stored,
 * the rules, the reply's prompt, the model with the agent's tools (the TURN_TOOLS port), the reply stored. The
 * conversations, their messages and sessions are the conversations module's data, written through its services.
 * Callers take a turn through TurnRuntime, as a stream of events; ConversationTurnsService is the pipeline itself.
 */
@Module({
  imports: [ConversationsModule, AgentsModule, LlmModule, UsageModule],
  controllers: [ConversationTurnsController],
  providers: [ConversationTurnsService, ConversationReplyService, TurnRuntime],
  exports: [TurnRuntime, ConversationTurnsService],
})
export class RuntimeModule {}
