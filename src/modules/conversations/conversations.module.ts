import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentsModule } from '@/modules/agents/agents.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { KnowledgeModule } from '@/modules/knowledge/knowledge.module';
import { EventsModule } from '@/modules/events/events.module';
import { UsageModule } from '@/modules/usage/usage.module';
import { LlmModule } from '@/providers/llm/llm.module';
import { AgentContextReader, ContactDirectory, KnowledgeLookup } from './agent-context';
import { AgentsContextReader, ContactsDirectory, KnowledgeSearchLookup } from './agent-context.adapters';
import { Conversation } from './conversation.entity';
import { ConversationsController, SessionsController } from './conversations.controller';
import { ConversationViewsRepository } from './conversation-views.repository';
import { ConversationsRepository } from './conversations.repository';
import { MessagesRepository } from './messages.repository';
import { SessionsRepository } from './sessions.repository';
import { ConversationsService } from './conversations.service';
import { ConversationMessagesService } from './conversation-messages.service';
import { MemorizeService } from './memorize.service';
import { Message } from './message.entity';
import { Session } from './session.entity';
import { SessionsService } from './sessions.service';
import { TranscriptConversationsService } from './transcript-conversations.service';
import { TurnLatencyService } from './turn-latency.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([Conversation, Message, Session]),
    AgentsModule,
    ContactsModule,
    KnowledgeModule,
    EventsModule,
    LlmModule,
    UsageModule,
  ],
  controllers: [ConversationsController, SessionsController],
  providers: [
    ConversationsRepository,
    ConversationViewsRepository,
    MessagesRepository,
    SessionsRepository,
    ConversationsService,
    ConversationMessagesService,
    SessionsService,
    MemorizeService,
    TranscriptConversationsService,
    TurnLatencyService,
    { provide: AgentContextReader, useClass: AgentsContextReader },
    { provide: ContactDirectory, useClass: ContactsDirectory },
    { provide: KnowledgeLookup, useClass: KnowledgeSearchLookup },
  ],
  exports: [
    ConversationsService,
    ConversationMessagesService,
    SessionsService,
    MemorizeService,
    TranscriptConversationsService,
    TurnLatencyService,
    AgentContextReader,
    ContactDirectory,
    KnowledgeLookup,
  ],
})
export class ConversationsModule {}
