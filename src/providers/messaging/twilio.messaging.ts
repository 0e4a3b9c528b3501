import { Inject, Injectable } from '@nestjs/common';
import twilio from 'twilio';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import {
  isTransientStatus,
  MessagingAdapter,
  MessagingProviderError,
  OutboundMessage,
} from './messaging.port';

type TwilioClient = ReturnType<typeof twilio>;

/**
 * SMS through Twilio Messaging (`POST /2010-04-01/Accounts/{sid}/Messages.json` with a `StatusCallback` per
 * message), with the `twilio` package pointed at TWILIO_API_URL, its connections kept alive between sends.
 */
@Injectable()
export class TwilioMessaging implements MessagingAdapter {
  readonly provider = 'twilio';
  readonly simulated = false;
  private client: TwilioClient | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get configured(): boolean {
    return !!this.config.twilio.accountSid && !!this.config.twilio.authToken;
  }

  private rest(): TwilioClient {
    if (!this.configured) throw new MessagingProviderError('NOT_CONFIGURED', 'Twilio is not configured');
    if (!this.client) {
      const { accountSid, authToken, apiUrl } = this.config.twilio;
      this.client = twilio(accountSid, authToken, { autoRetry: false, keepAlive: true });
      this.client.api.baseUrl = apiUrl;
    }
    return this.client;
  }

  async send(message: OutboundMessage): Promise<{ providerMessageId: string }> {
    const statusCallback = `${this.config.publicBaseUrl}/hooks/v1/twilio/messages/${message.messageId}/status`;
    try {
      const sent = await this.rest().messages.create({
        from: message.from,
        to: message.to,
        body: message.text ?? '',
        statusCallback,
      });
      return { providerMessageId: sent.sid };
    } catch (err) {
      if (err instanceof MessagingProviderError) throw err;
      // The twilio client's RestException carries the HTTP status; a network failure or timeout has none.
      const e = err as { code?: number | string; status?: number; message?: string };
      throw new MessagingProviderError(
        String(e.code ?? e.status ?? 'PROVIDER_ERROR'),
        e.message ?? 'Twilio refused the message',
        isTransientStatus(typeof e.status === 'number' ? e.status : undefined),
      );
    }
  }
}
