import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { MESSAGING_ADAPTERS, MessagingAdapter, MessagingChannel } from './messaging.port';

/**
 * The adapter for a channel on a number: a `sandbox` number is the sandbox on every channel; `twilio` serves SMS;
 * WhatsApp, Messenger and Instagram on anything else are Meta.
 */
@Injectable()
export class MessagingRegistry {
  constructor(@Inject(MESSAGING_ADAPTERS) private readonly adapters: MessagingAdapter[]) {}

  providerFor(numberProvider: string, channel: MessagingChannel): string {
    if (numberProvider === 'sandbox') return 'sandbox';
    return channel === 'sms' ? numberProvider : 'meta';
  }

  /**
   * 422 on `phone_number_uuid` when the number's provider for this channel cannot send in this deployment (a
   * `twilio` number while `TWILIO_ACCOUNT_SID` is unset, WhatsApp through Meta without `META_ACCESS_TOKEN`), so the
   * request is refused before anything is stored instead of failing in the send job.
   */
  assertCanSend(number: { number: string; provider: string }, channel: MessagingChannel): void {
    const provider = this.providerFor(number.provider, channel);
    const adapter = this.adapters.find((a) => a.provider === provider);
    if (adapter?.configured) return;
    const missing =
      provider === 'twilio'
        ? 'Twilio is not configured (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN)'
        : provider === 'meta'
          ? 'the Meta Graph API is not configured (META_ACCESS_TOKEN)'
          : `no ${provider} provider is configured`;
    throw AppException.invalid(
      'phone_number_uuid',
      `${number.number} sends ${channel} through ${provider} and ${missing} in this deployment`,
      'VALIDATION_ERROR',
    );
  }

  for(provider: string): MessagingAdapter {
    const adapter = this.adapters.find((a) => a.provider === provider);
    if (!adapter) throw AppException.conflict(`Messages through the provider ${provider} are not configured`);
    return adapter;
  }
}
