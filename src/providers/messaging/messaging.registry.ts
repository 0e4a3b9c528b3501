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

  for(provider: string): MessagingAdapter {
    const adapter = this.adapters.find((a) => a.provider === provider);
    if (!adapter) throw AppException.conflict(`Messages through the provider ${provider} are not configured`);
    return adapter;
  }
}
