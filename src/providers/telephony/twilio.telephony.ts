import { Inject, Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import twilio, { Twilio } from 'twilio';
import { AppException } from '@/common/errors/app.exception';
import { REDIS } from '@/common/redis/redis.module';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { SPEECH_TO_TEXT, SpeechToText, TEXT_TO_SPEECH, TextToSpeech } from '@/providers/speech/speech.port';
import { streamToken } from '@/providers/twilio/stream-token';
import {
  type DialRequest,
  type ForwardTarget,
  type ProviderCallRef,
  ProviderRefusal,
  type TelephonyAdapter,
} from './telephony.port';
import { dialTwiml, digitsTwiml, streamTwiml, TwilioUrls } from './twilio-twiml';

/** How long a forward waits for the other leg to answer or fail (Dial timeout plus the callback's way back). */
const FORWARD_RING_SECONDS = 30;
const FORWARD_WAIT_MS = (FORWARD_RING_SECONDS + 15) * 1000;
const POLL_MS = 100;

export const SPEECH_NOT_CONFIGURED = 'Speech services are not configured';

// Key names without the deployment's prefix: the shared client adds it (REDIS's `keyPrefix`).

/** Where the hooks leave a forward's outcome for the adapter waiting on it. */
export const dialOutcomeKey = (callId: string, attempt: string) => `twilio:dial:${callId}:${attempt}`;

/** Set while a forward redirects the call: its media stream ends without the customer hanging up. */
export const forwardingKey = (callId: string) => `twilio:forwarding:${callId}`;

/**
 * Set while keys are pressed on the call: its media stream ends for the `<Play digits>` and comes back to the same
 * media session (the call goes on).
 */
export const resumingKey = (callId: string) => `twilio:resuming:${callId}`;
const RESUMING_TTL_SECONDS = 120;

/**
 * Twilio Programmable Voice over its REST API (`TWILIO_API_URL`): dial with the `<Connect><Stream>` TwiML, end,
 * forward with `<Dial>`. Status and recording callbacks arrive signed at /hooks/v1/twilio/... (VoiceHooks).
 */
@Injectable()
export class TwilioTelephony implements TelephonyAdapter {
  readonly provider = 'twilio';
  readonly simulated = false;
  private readonly logger = new Logger(TwilioTelephony.name);
  private readonly client: Twilio;
  readonly urls: TwilioUrls;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(SPEECH_TO_TEXT) private readonly stt: SpeechToText,
    @Inject(TEXT_TO_SPEECH) private readonly tts: TextToSpeech,
  ) {
    this.client = twilio(config.twilio.accountSid, config.twilio.authToken ?? 'unset');
    this.urls = new TwilioUrls(config.publicBaseUrl);
  }

  /** Twilio calls need speech in and out; without them a call is refused. */
  unavailableReason(): string | null {
    return this.stt.configured && this.tts.configured ? null : SPEECH_NOT_CONFIGURED;
  }

  /** The TwiML that connects a call to its media socket. */
  streamTwiml(callId: string): string {
    return streamTwiml(this.urls, callId, this.streamToken(callId));
  }

  private streamToken(callId: string): string {
    return streamToken(this.config.auth.encryptionKey!, callId);
  }

  private callsUrl(sid?: string): string {
    const account = this.config.twilio.accountSid!;
    return `${this.config.twilio.apiUrl}/2010-04-01/Accounts/${account}/Calls${sid ? `/${sid}` : ''}.json`;
  }

  private async rest(uri: string, data: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = (await this.client.request({ method: 'post', uri, data })) as {
      statusCode: number;
      body: unknown;
    };
    const body = (typeof res.body === 'string' ? safeJson(res.body) : res.body) as Record<string, unknown>;
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const message = typeof body?.message === 'string' ? body.message : '';
      const answered = `Twilio answered HTTP ${res.statusCode}${message ? `: ${message}` : ''}`;
      const code = body?.code;
      // Twilio's own error code, kept as the status callbacks keep theirs (`TWILIO_<code>`).
      if (typeof code === 'number' || (typeof code === 'string' && /^\d+$/.test(code)))
        throw new ProviderRefusal(answered, {
          code: `TWILIO_${code}`,
          message: message || `Twilio error ${code}`,
        });
      throw new AppException('PROVIDER_ERROR', answered, {
        details: JSON.stringify({ code: null, message: message || null }),
      });
    }
    return body ?? {};
  }

  async dial(request: DialRequest): Promise<{ providerCallId: string }> {
    const { callId } = request;
    const data: Record<string, unknown> = {
      To: request.trunk ? trunkAddress(request.to, request.trunk.gateway) : request.to,
      From: request.from,
      Timeout: request.ringTimeoutSeconds,
      Twiml: this.streamTwiml(callId),
      StatusCallback: this.urls.hook(callId, 'status'),
      StatusCallbackMethod: 'POST',
      StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
    };
    // Asynchronous answering-machine detection: the stream starts at once and the answer comes to its own hook,
    // after the greeting's beep for a machine (DetectMessageEnd), so a message left then is heard whole.
    if (request.machineDetection)
      Object.assign(data, {
        MachineDetection: 'DetectMessageEnd',
        AsyncAmd: 'true',
        AsyncAmdStatusCallback: this.urls.hook(callId, 'amd'),
        AsyncAmdStatusCallbackMethod: 'POST',
      });
    if (request.record)
      Object.assign(data, {
        Record: true,
        RecordingChannels: 'dual',
        RecordingStatusCallback: this.urls.hook(callId, 'recording'),
        RecordingStatusCallbackEvent: ['completed'],
      });
    const trunk = request.trunk;
    if (trunk?.username) data.SipAuthUsername = trunk.username;
    if (trunk?.password) data.SipAuthPassword = trunk.password;
    let body: Record<string, unknown>;
    try {
      body = await this.rest(this.callsUrl(), data);
    } catch (err) {
      // A trunk with a second gateway: Twilio refusing the first address is tried once on the second.
      if (!trunk?.secondaryGateway) throw err;
      this.logger.warn({ callId }, 'trunk gateway refused, trying the secondary gateway');
      body = await this.rest(this.callsUrl(), {
        ...data,
        To: trunkAddress(request.to, trunk.secondaryGateway),
      });
    }
    if (typeof body.sid !== 'string')
      throw new AppException('PROVIDER_ERROR', 'Twilio answered without a sid');
    return { providerCallId: body.sid };
  }

  async hangup(call: ProviderCallRef, answered: boolean): Promise<void> {
    if (!call.providerCallId) return;
    await this.rest(this.callsUrl(call.providerCallId), { Status: answered ? 'completed' : 'canceled' });
  }

  /**
   * Presses keys: the call is updated with `<Play digits>` then `<Connect><Stream>`, so its media stream ends and
   * comes back once the keys are played.
   */
  async sendDigits(call: ProviderCallRef, digits: string): Promise<Record<string, unknown>> {
    if (!call.providerCallId) throw AppException.conflict('The call has no Twilio call to press keys on');
    const twiml = digitsTwiml(this.urls, call.callId, this.streamToken(call.callId), digits);
    await this.redis.set(resumingKey(call.callId), '1', 'EX', RESUMING_TTL_SECONDS);
    try {
      await this.rest(this.callsUrl(call.providerCallId), { Twiml: twiml });
    } catch (err) {
      await this.redis.del(resumingKey(call.callId));
      throw err;
    }
    return { CallSid: call.providerCallId };
  }

  /**
   * Redirects the call to a `<Dial>` and waits for the hooks to say whether the other leg answered (`dial-status`
   * answered) or not (the `<Dial>` action with another outcome, which also reconnects the media stream).
   */
  async forward(call: ProviderCallRef, target: ForwardTarget): Promise<{ connected: boolean }> {
    // An extension is dialled as <Sip> on the PBX connector's registrar; without a connector it cannot be reached.
    if (!call.providerCallId) return { connected: false };
    if (target.type === 'extension' && !target.sip) return { connected: false };
    const attempt = Date.now().toString(36);
    const twiml = dialTwiml(
      this.urls,
      call.callId,
      attempt,
      target.type === 'extension' ? { sip: target.sip! } : { number: target.value },
      target.whisper,
      FORWARD_RING_SECONDS,
    );
    await this.redis.set(forwardingKey(call.callId), attempt, 'EX', 120);
    await this.rest(this.callsUrl(call.providerCallId), { Twiml: twiml });
    const key = dialOutcomeKey(call.callId, attempt);
    const until = Date.now() + FORWARD_WAIT_MS;
    while (Date.now() < until) {
      const outcome = await this.redis.get(key);
      if (outcome) return { connected: outcome === 'connected' };
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    this.logger.warn({ callId: call.callId }, 'forward outcome never reported');
    return { connected: false };
  }
}

/** `sip:<number>@<gateway>`: a call over the customer's trunk. */
export function trunkAddress(number: string, gateway: string): string {
  return `sip:${number}@${gateway.includes(':') ? `[${gateway}]` : gateway}`;
}

/** The number in a SIP address Twilio hands over (`sip:+15551234567@domain;params`), else the value as is. */
export function numberOfAddress(value: string | undefined): string | undefined {
  if (!value) return value;
  const m = /^sips?:([^@;]+)@/i.exec(value.trim());
  if (!m) return value;
  let user = m[1];
  try {
    user = decodeURIComponent(user);
  } catch {
    // kept as sent
  }
  return /^\+?\d{8,15}$/.test(user) ? (user.startsWith('+') ? user : `+${user}`) : user;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
