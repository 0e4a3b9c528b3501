import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import * as http from 'node:http';
import * as https from 'node:https';
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
 * `twilio` package's client (its request stack and its parsing of every date field of the answer were most of the
 * CPU of sending an SMS; only the answer's `sid` is needed), nor `fetch` (heavier than a plain request on a kept-alive
 * connection).
 */
@Injectable()
export class TwilioMessaging implements MessagingAdapter, OnApplicationShutdown {
  readonly provider = 'twilio';
  readonly simulated = false;
  private authorization: string | null = null;
  private httpAgent?: http.Agent;
  private httpsAgent?: https.Agent;

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
    let res: { status: number; text: string };
    try {
      res = await this.post(
        `${apiUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid!)}/Messages.json`,
        body,
      );
    } catch (err) {
      // Unreachable or too slow: no status, so it is tried again.
      const e = err as Error & { code?: string };
      throw new MessagingProviderError(e.code ?? 'NETWORK', `Twilio is unreachable: ${e.message}`, true);
    }
    const { status, text } = res;
    let json: TwilioAnswer | null = null;
    try {
      json = text ? (JSON.parse(text) as TwilioAnswer) : null;
    } catch {
      json = null;
    }
    const ok = status >= 200 && status < 300;
    if (ok && json?.sid) return { providerMessageId: json.sid };
    throw new MessagingProviderError(
      String(json?.code ?? status),
      json?.message ?? `Twilio answered ${status}`,
      isTransientStatus(ok ? undefined : status),
    );
  }

  /** One form POST on a kept-alive connection; the answer's status and body. */
  private post(url: string, body: string): Promise<{ status: number; text: string }> {
    const secure = url.startsWith('https:');
    const agent = secure
      ? (this.httpsAgent ??= new https.Agent({ keepAlive: true }))
      : (this.httpAgent ??= new http.Agent({ keepAlive: true }));
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(
        url,
        {
          method: 'POST',
          agent,
          timeout: TIMEOUT_MS,
          headers: {
            Authorization: this.authorization!,
            'Content-Type': 'application/x-www-form-urlencoded',
            'Content-Length': Buffer.byteLength(body),
            Accept: 'application/json',
          },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (c: Buffer) => chunks.push(c));
          answer.on('end', () =>
            resolve({ status: answer.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
          );
          answer.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
      req.on('error', reject);
      req.end(body);
    });
  }

  onApplicationShutdown(): void {
    this.httpAgent?.destroy();
    this.httpsAgent?.destroy();
  }
}
