import { Module } from '@nestjs/common';
import { CallsModule } from '@/modules/calls/calls.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { UsageModule } from '@/modules/usage/usage.module';
import { MediaStreamServer } from './media/media-stream.server';
import { TwilioHooksController } from './twilio-hooks.controller';
import { TwilioHooks } from './twilio-hooks.service';

/** The voice runtime on Twilio: signed hooks, media streams, speech in and out. */
@Module({
  imports: [CallsModule, ConversationsModule, UsageModule],
  controllers: [TwilioHooksController],
  providers: [TwilioHooks, MediaStreamServer],
  exports: [MediaStreamServer],
})
export class VoiceModule {}
