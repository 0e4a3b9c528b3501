import { Module } from '@nestjs/common';
import { CallsModule } from '@/modules/calls/calls.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { UsageModule } from '@/modules/usage/usage.module';
import { MediaOpener } from './media/media-opener';
import { MediaSessions } from './media/media-sessions';
import { MediaStreamServer } from './media/media-stream.server';
import { TwilioHooksController } from './twilio-hooks.controller';
import { TwilioHooks } from './twilio-hooks.service';

/** The voice runtime on Twilio: signed hooks, media streams, speech in and out. */
@Module({
  imports: [CallsModule, ConversationsModule, UsageModule],
  controllers: [TwilioHooksController],
  // MediaSessions is bound to the calls module's CALL_MEDIA port by PortBindingsModule.
  providers: [TwilioHooks, MediaSessions, MediaOpener, MediaStreamServer],
  exports: [MediaSessions, MediaOpener, MediaStreamServer],
})
export class VoiceModule {}
