import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import {
  isTransientStatus,
  MessagingAdapter,
  MessagingProviderError,
  OutboundMessage,
} from './messaging.port';

/** What is read of Twilio's answer: the message's SID, or the error's code and message. */
interface TwilioAnswer {
  sid?: string;
  code?: number | string;
  message?: string;
}

/** Twilio's own client deadline. */
const TIMEOUT_MS = 30_000;

/**
 * SMS through Twilio Messaging: one `POST /2010-04-01/Accounts/{sid}/Messages.json` (form body, basic auth with the
 * account SID and auth token) with a `StatusCallback` per message, to TWILIO_API_URL. A direct request, not the
 * `twilio` package's client: the client's request stack and its parsing of every date field of the answer cost
 * more CPU than the rest of sending an SMS; only the answer's `sid` is needed.
 */
@Injectable()
export class TwilioMessaging implements MessagingAdapter {
  readonly provider = 'twilio';
  readonly simulated = false;
  private authorization: string | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get configured(): boolean {
    return !!this.config.twilio.accountSid && !!this.config.twilio.authToken;
  }

  async send(message: OutboundMessage): Promise<{ providerMessageId: string }> {
    if (!this.configured) throw new MessagingProviderError('NOT_CONFIGURED', 'Twilio is not configured');
    const { accountSid, authToken, apiUrl } = this.config.twilio;
    this.authorization ??= `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
    const statusCallback = `${this.config.publicBaseUrl}/hooks/v1/twilio/messages/${message.messageId}/status`;
    const body = new URLSearchParams({
      To: message.to,
      From: message.from,
      Body: message.text ?? '',
      StatusCallback: statusCallback,
    }).toString();
    let res: Response;
    try {
      res = await fetch(`${apiUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid!)}/Messages.json`, {
        method: 'POST',
        headers: {
          Authorization: this.authorization,
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body,
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      // Unreachable or too slow: no status, so it is tried again.
      const e = err as Error & { cause?: { code?: string } };
      throw new MessagingProviderError(
        e.cause?.code ?? e.name ?? 'NETWORK',
        `Twilio is unreachable: ${e.message}`,
        true,
      );
    }
    const text = await res.text();
    let json: TwilioAnswer | null = null;
    try {
      json = text ? (JSON.parse(text) as TwilioAnswer) : null;
    } catch {
      json = null;
    }
    if (res.ok && json?.sid) return { providerMessageId: json.sid };
    throw new MessagingProviderError(
      String(json?.code ?? res.status),
      json?.message ?? `Twilio answered ${res.status}`,
      isTransientStatus(res.ok ? undefined : res.status),
    );
  }
}
