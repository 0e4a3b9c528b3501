import { Module } from '@nestjs/common';
import { MetaMessaging } from './meta.messaging';
import { MESSAGING_ADAPTERS } from './messaging.port';
import { MessagingRegistry } from './messaging.registry';
import { SandboxMessaging } from './sandbox.messaging';
import { TwilioMessaging } from './twilio.messaging';

/** Message providers by name: the sandbox always, Twilio and Meta (which refuse to send until configured). */
@Module({
  providers: [
    SandboxMessaging,
    TwilioMessaging,
    MetaMessaging,
    {
      provide: MESSAGING_ADAPTERS,
      inject: [SandboxMessaging, TwilioMessaging, MetaMessaging],
      useFactory: (s: SandboxMessaging, t: TwilioMessaging, m: MetaMessaging) => [s, t, m],
    },
    MessagingRegistry,
  ],
  exports: [MessagingRegistry, MetaMessaging],
})
export class MessagingProvidersModule {}
