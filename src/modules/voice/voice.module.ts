import { Module } from '@nestjs/common';
import { CallsModule } from '@/modules/calls/calls.module';
import { TwilioHooksController } from './twilio-hooks.controller';
import { TwilioHooks } from './twilio-hooks.service';

/** The voice runtime on Twilio: signed hooks, media streams, speech in and out. */
@Module({
  imports: [CallsModule],
  controllers: [TwilioHooksController],
  providers: [TwilioHooks],
})
export class VoiceModule {}
