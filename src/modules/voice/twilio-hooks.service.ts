import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import Redis from 'ioredis';
import { AppException } from '@/common/errors/app.exception';
import { InboundCallsDisabled, NoAgentBound } from '@/common/errors/domain-errors';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { REDIS } from '@/common/redis/redis.module';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { CallLifecycle } from '@/modules/calls/runtime/call-lifecycle.service';
import { InboundCalls } from '@/modules/calls/api/inbound-calls.service';
import { CallsService } from '@/modules/calls/api/calls.service';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import { UsageRecorder } from '@/modules/usage/usage-recorder';
import { type CallStatus, DETECTION_RETRY } from '@/providers/telephony/telephony.port';
import type { CallChannel } from '@/modules/calls/call.entity';
import { dialOutcomeKey, numberOfAddress, TwilioTelephony } from '@/providers/telephony/twilio.telephony';
import {
  emptyTwiml,
  hangUp,
  reject,
  rejectBusy,
  sayAndHangUp,
  sayOnly,
} from '@/providers/telephony/twilio-twiml';
import { isValidTwilioSignature } from '@/providers/twilio/twilio-signature';
import type { WorkspaceId } from '@/common/auth/workspace-id';

export const NOT_IN_SERVICE = 'This number is not in service.';
const SEEN_TTL_SECONDS = 86_400;

const STATUSES: Record<string, CallStatus> = {
  queued: 'queued',
  initiated: 'queued',
  ringing: 'ringing',
  'in-progress': 'in-progress',
  answered: 'in-progress',
  completed: 'completed',
  busy: 'busy',
  'no-answer': 'no-answer',
  failed: 'failed',
  canceled: 'canceled',
};

export type Form = Record<string, string>;

/** The fields of a status callback and of an AMD answer kept in the call's provider log. */
const STATUS_FIELDS = [
  'CallSid',
  'CallStatus',
  'CallDuration',
  'SipResponseCode',
  'ErrorCode',
  'SequenceNumber',
];
const AMD_FIELDS = ['CallSid', 'AnsweredBy', 'MachineDetectionDuration'];

/** The fields of `form` named, those present only. */
function pick(form: Form, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((k) => form[k] !== undefined).map((k) => [k, form[k]]));
}

/**
 * Twilio's signed hooks: each is checked over PUBLIC_BASE_URL + the path and query as called, finds its workspace
 * from the call in the path or the number addressed, drops repeats by Twilio's ids and leaves the work to jobs.
 */
@Injectable()
export class TwilioHooks {
  private readonly logger = new Logger(TwilioHooks.name);
  /** Counts a forwarded leg's minutes for its call. */
  @Inject(UsageRecorder) private readonly usage!: UsageRecorder;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly calls: CallsService,
    private readonly numbers: PhoneNumbersService,
    private readonly inboundCalls: InboundCalls,
    private readonly lifecycle: CallLifecycle,
    private readonly twilio: TwilioTelephony,
    @InjectQueue(QUEUES.calls)
    private readonly callsQueue: Queue<JobPayloads['calls']['provider-event' | 'machine-detection']>,
    @InjectQueue(QUEUES.voice) private readonly voiceQueue: Queue<JobPayloads['voice']['recording']>,
  ) {}

  /** 401 INVALID_SIGNATURE unless Twilio signed this exact URL and form. */
  verify(originalUrl: string, form: Form, signature: string | undefined): void {
    const token = this.config.twilio.authToken;
    const url = `${this.config.publicBaseUrl}${originalUrl}`;
    if (!token || !isValidTwilioSignature(token, url, form, signature))
      throw new AppException('INVALID_SIGNATURE', 'The request signature is missing or wrong');
  }

  /** Once per key for a day: false for a repeat. */
  private async first(key: string): Promise<boolean> {
    const set = await this.redis.set(`twilio:seen:${key}`, '1', 'EX', SEEN_TTL_SECONDS, 'NX');
    return set === 'OK';
  }

  private async callOf(callId: string): Promise<{ workspaceId: WorkspaceId; callId: string }> {
    const workspaceId = await this.calls.workspaceOf(callId);
    if (!workspaceId) throw AppException.notFound('Call');
    return { workspaceId, callId };
  }

  /** A status callback: the move runs in the calls queue; repeats (CallSid+CallStatus+SequenceNumber) are dropped. */
  async status(callId: string, form: Form): Promise<void> {
    const { workspaceId } = await this.callOf(callId);
    const status = STATUSES[form.CallStatus ?? ''];
    if (!status) return;
    if (!(await this.first(`status:${form.CallSid}:${form.CallStatus}:${form.SequenceNumber ?? ''}`))) return;
    const error = form.ErrorCode
      ? { code: `TWILIO_${form.ErrorCode}`, message: form.ErrorMessage || `Twilio error ${form.ErrorCode}` }
      : status === 'failed'
        ? { code: 'PROVIDER_ERROR', message: 'Twilio reported the call failed' }
        : null;
    const detail = pick(form, STATUS_FIELDS);
    await this.callsQueue.add('provider-event', { workspaceId, callId, event: { status, error, detail } });
  }

  /**
   * The asynchronous answering-machine detection's answer (`AnsweredBy`, `MachineDetectionDuration`): applied in the
   * calls queue; a repeat (same CallSid) is dropped, one after the call ended lands in its provider log only.
   */
  async amd(callId: string, form: Form): Promise<void> {
    const { workspaceId } = await this.callOf(callId);
    if (!form.AnsweredBy || !(await this.first(`amd:${form.CallSid ?? callId}`))) return;
    const detail = pick(form, AMD_FIELDS);
    const duration = Number(form.MachineDetectionDuration);
    await this.callsQueue.add(
      'machine-detection',
      {
        workspaceId,
        callId,
        report: {
          source: 'twilio',
          answeredBy: form.AnsweredBy,
          durationMs: Number.isFinite(duration) ? duration : null,
          detail,
        },
      },
      DETECTION_RETRY,
    );
  }

  /** An inbound call on a number: the stream TwiML for the bound agent, else a refusal said or signalled. */
  async inbound(form: Form, channel: CallChannel = 'phone'): Promise<string> {
    // Through a Twilio SIP domain (a trunk, or WhatsApp calls from Meta) both legs are SIP addresses: the
    // dialled number routes the call, the caller's number names the contact.
    const to = numberOfAddress(form.To);
    const from = numberOfAddress(form.From) ?? '';
    const number = to ? await this.numbers.findProviderNumber(to, 'twilio') : null;
    if (!number) return sayAndHangUp(NOT_IN_SERVICE);
    if (!this.numbers.takesInbound(number)) return reject();
    const seenKey = `twilio:inbound:${form.CallSid}`;
    const reason = this.twilio.unavailableReason();
    if (reason) {
      // Said to the caller and stored failed (once per CallSid: Twilio may repeat the hook).
      if (await this.first(`inbound-refused:${form.CallSid}`))
        await this.inboundCalls
          .inbound(number.workspaceId, number, from, channel, {
            unavailable: { code: 'SPEECH_UNAVAILABLE', message: reason },
          })
          .catch((err: Error) =>
            this.logger.warn({ callSid: form.CallSid, err: err.message }, 'refused inbound call not stored'),
          );
      return sayAndHangUp(reason);
    }
    const known = await this.redis.get(seenKey);
    if (known) return this.twilio.streamTwiml(known);
    try {
      const call = await this.inboundCalls.inbound(number.workspaceId, number, from, channel, {
        storeRefusal: true,
      });
      if (call.status === 'busy') return rejectBusy();
      if (call.status !== 'ringing') return sayAndHangUp(NOT_IN_SERVICE);
      await this.calls.setProviderCallId(number.workspaceId, call.uuid, form.CallSid);
      await this.redis.set(seenKey, call.uuid, 'EX', SEEN_TTL_SECONDS);
      return this.twilio.streamTwiml(call.uuid);
    } catch (err) {
      // No agent bound, or inbound calls switched off since the number was read: the number is not in service.
      if (err instanceof NoAgentBound || err instanceof InboundCallsDisabled)
        return sayAndHangUp(NOT_IN_SERVICE);
      throw err;
    }
  }

  /** The recording is ready at Twilio: downloaded by a job. */
  async recording(callId: string, form: Form): Promise<void> {
    const { workspaceId } = await this.callOf(callId);
    if (form.RecordingStatus !== 'completed' || !form.RecordingSid || !form.RecordingUrl) return;
    if (!(await this.first(`recording:${form.RecordingSid}`))) return;
    await this.voiceQueue.add(
      'recording',
      {
        workspaceId,
        callId,
        recordingSid: form.RecordingSid,
        recordingUrl: form.RecordingUrl,
        duration: Number(form.RecordingDuration ?? 0) || 0,
        channels: Number(form.RecordingChannels ?? 2) || 2,
      },
      { jobId: `recording:${form.RecordingSid}` },
    );
  }

  /** The other leg of a forward answered. */
  async dialStatus(callId: string, attempt: string, form: Form): Promise<void> {
    await this.callOf(callId);
    if (form.CallStatus === 'in-progress' || form.CallStatus === 'answered')
      await this.redis.set(dialOutcomeKey(callId, attempt), 'connected', 'EX', 3600, 'NX');
  }

  /**
   * The `<Dial>` ended. It never connected: the forward failed and the call goes back to its media stream, where
   * the AI carries on. It connected: the bridged conversation is over and the call ends `forward_completed`.
   */
  async dialEnded(callId: string, attempt: string, form: Form): Promise<string> {
    const { workspaceId } = await this.callOf(callId);
    const key = dialOutcomeKey(callId, attempt);
    const answered = form.DialCallStatus === 'completed' || form.DialCallStatus === 'answered';
    await this.redis.set(key, answered ? 'connected' : 'failed', 'EX', 3600, 'NX');
    if ((await this.redis.get(key)) !== 'connected') return this.twilio.streamTwiml(callId);
    // The forwarded leg's minutes, as Twilio measured them, once per forward (a repeated callback adds nothing).
    const forwarded = Math.floor(Number(form.DialCallDuration)) || 0;
    if (forwarded > 0 && (await this.first(`dial-usage:${callId}:${attempt}`)))
      this.usage.add(workspaceId, callId, { forwardedSeconds: forwarded });
    await this.lifecycle
      .move(workspaceId, callId, 'completed', { endReason: 'forward_completed' })
      .catch((err: Error) => this.logger.debug({ callId, err: err.message }, 'forwarded call already ended'));
    return hangUp();
  }

  whisper(text: string): string {
    return sayOnly(text);
  }

  empty(): string {
    return emptyTwiml();
  }
}
