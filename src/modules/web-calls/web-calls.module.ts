import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CallsModule } from '@/modules/calls/calls.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { VoiceModule } from '@/modules/voice/voice.module';
import { WorkspacesModule } from '@/modules/workspaces/workspaces.module';
import { WebCallLimits } from './web-call-limits';
import { WebCallPagesController } from './web-call-pages.controller';
import { WebCallToken } from './web-call-token.entity';
import { WebCallTokensRepository } from './web-call-tokens.repository';
import { WebCallServer } from './web-call.server';
import { WebCallsController } from './web-calls.controller';
import { WebCallsService } from './web-calls.service';

/** Calls from a browser: the resource, its client tokens, the socket, the page and the embed script. */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebCallToken]),
    CallsModule,
    ContactsModule,
    ConversationsModule,
    VoiceModule,
    WorkspacesModule,
  ],
  controllers: [WebCallsController, WebCallPagesController],
  providers: [WebCallsService, WebCallTokensRepository, WebCallLimits, WebCallServer],
  exports: [WebCallServer],
})
export class WebCallsModule {}
