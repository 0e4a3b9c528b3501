import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BlacklistModule } from '@/modules/blacklist/blacklist.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { EventsModule } from '@/modules/events/events.module';
import { PhoneNumbersModule } from '@/modules/phone-numbers/phone-numbers.module';
import { RuntimeModule } from '@/modules/runtime/runtime.module';
import { MessagingProvidersModule } from '@/providers/messaging/messaging.module';
import { SpeechModule } from '@/providers/speech/speech.module';
import { MessagingHooksController } from './hooks.controller';
import { InboundMessagesService } from './inbound-messages.service';
import { InboundQueue } from './inbound-queue';
import { InboundSimulation } from './inbound-simulation';
import { MessageSender } from './message-sender';
import { MessageStatusService } from './message-status.service';
import { MessagesController } from './messages.controller';
import { MessagingLines } from './messaging-lines';
import {
  MessagingThread,
  ProviderMessage,
  WhatsappTemplate,
  WhatsappTemplateSetting,
} from './messaging.entities';
import { MessagingThreadsRepository, ProviderMessagesRepository } from './messaging.repositories';
import { OutboundMessagesService } from './outbound-messages.service';
import { MessagingTemplateSender } from './outbound-template-sender';
import { TemplateSettingsRepository, WhatsappTemplatesRepository } from './templates.repositories';
import { WhatsappController } from './whatsapp.controller';
import { WhatsappTemplateSends } from './whatsapp-template-sends';
import { VoiceNotes } from './voice-notes';
import { WhatsappTemplatesService } from './whatsapp-templates.service';

/** SMS, WhatsApp, Messenger and Instagram: provider messages, inbound threads, templates, provider hooks. */
@Module({
  imports: [
    TypeOrmModule.forFeature([ProviderMessage, MessagingThread, WhatsappTemplate, WhatsappTemplateSetting]),
    ConversationsModule,
    RuntimeModule,
    ContactsModule,
    PhoneNumbersModule,
    BlacklistModule,
    EventsModule,
    MessagingProvidersModule,
    SpeechModule,
  ],
  controllers: [MessagesController, WhatsappController, MessagingHooksController],
  providers: [
    ProviderMessagesRepository,
    MessagingThreadsRepository,
    WhatsappTemplatesRepository,
    TemplateSettingsRepository,
    MessageStatusService,
    MessageSender,
    MessagingLines,
    OutboundMessagesService,
    InboundMessagesService,
    InboundQueue,
    InboundSimulation,
    WhatsappTemplatesService,
    WhatsappTemplateSends,
    MessagingTemplateSender,
    VoiceNotes,
  ],
  exports: [
    // Bound to outbound's OUTBOUND_TEMPLATE_SENDER port by PortBindingsModule.
    MessagingTemplateSender,
    OutboundMessagesService,
    WhatsappTemplateSends,
    InboundQueue,
    InboundMessagesService,
    MessageSender,
    MessageStatusService,
    ProviderMessagesRepository,
    WhatsappTemplatesService,
  ],
})
export class MessagingModule {}
