import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { SpeechModule } from '@/providers/speech/speech.module';
import { SandboxTelephony } from './sandbox.telephony';
import { TELEPHONY_ADAPTERS } from './telephony.port';
import { TelephonyRegistry } from './telephony.registry';
import { TwilioTelephony } from './twilio.telephony';
import { WebTelephony } from './web.telephony';

/**
 * Telephony adapters by provider; the sandbox and web calls (from a browser) are always there, Twilio joins when
 * TWILIO_ACCOUNT_SID is set.
 */
@Module({
  imports: [SpeechModule],
  providers: [
    SandboxTelephony,
    TwilioTelephony,
    WebTelephony,
    {
      provide: TELEPHONY_ADAPTERS,
      inject: [SandboxTelephony, TwilioTelephony, WebTelephony, APP_CONFIG],
      useFactory: (s: SandboxTelephony, t: TwilioTelephony, w: WebTelephony, config: AppConfig) =>
        config.twilio.accountSid ? [s, t, w] : [s, w],
    },
    TelephonyRegistry,
  ],
  exports: [TelephonyRegistry, TwilioTelephony, SpeechModule],
})
export class TelephonyModule {}
