import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { AppException } from '@/common/errors/app.exception';
import { CallNotFound } from '@/common/errors/domain-errors';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { ProviderRefusal } from '@/providers/telephony/telephony.port';
import { TelephonyRegistry } from '@/providers/telephony/telephony.registry';
import { SipDirectory } from '@/modules/sip/sip-directory';
import { CallLifecycle } from '../call-lifecycle.service';
import { CallTimers } from '../call-timers.service';
import { CallVoicemail } from '../call-voicemail.service';
import { CallSlots } from '../call-slots';
import { CallsRepository } from '../../calls.repository';

type Jobs = JobPayloads['calls'];

/** The calls queue: dialling, provider events, the call timers and the concurrency reconciler. */
@Processor(QUEUES.calls)
export class CallsProcessor {
  private readonly logger = new Logger(CallsProcessor.name);

  constructor(
    private readonly calls: CallsRepository,
    private readonly lifecycle: CallLifecycle,
    private readonly timers: CallTimers,
    private readonly telephony: TelephonyRegistry,
    private readonly slots: CallSlots,
    private readonly sip: SipDirectory,
    private readonly voicemail: CallVoicemail,
  ) {}

  /** Places a queued call; a provider refusal ends it `failed` with the provider's error. */
  @Process({ name: 'dial', concurrency: 16 })
  async dial(job: Job<Jobs['dial']>): Promise<void> {
    const { workspaceId, callId } = job.data;
    const call = await this.calls.findById(workspaceId, callId);
    if (call?.status !== 'queued' || call.providerCallId) return;
    try {
      const { providerCallId } = await this.telephony.for(call.provider).dial({
        workspaceId,
        callId,
        from: call.fromNumber,
        to: call.toNumber,
        ringTimeoutSeconds: call.ringTimeoutSeconds,
        record: call.record,
        machineDetection: call.direction === 'Outbound' && !!call.voicemail?.detection,
        trunk: call.phoneNumberId ? await this.sip.trunkRoute(workspaceId, call.phoneNumberId) : null,
      });
      // Only this column: the provider's events may already have moved the call meanwhile.
      await this.calls.setProviderCallId(workspaceId, callId, providerCallId);
    } catch (err) {
      // The provider's own error when it gave one (Twilio's `TWILIO_21211` and its message), else ours.
      const error =
        err instanceof ProviderRefusal
          ? err.provider
          : {
              code: err instanceof AppException ? err.code : 'PROVIDER_ERROR',
              message: err instanceof Error ? err.message : String(err),
            };
      await this.lifecycle
        .move(workspaceId, callId, 'failed', { endReason: 'provider_error', error })
        .catch(() => undefined);
    }
  }

  @Process({ name: 'provider-event', concurrency: 16 })
  async providerEvent(job: Job<Jobs['provider-event']>): Promise<void> {
    const { workspaceId, callId, event } = job.data;
    await this.lifecycle.providerEvent(workspaceId, callId, event).catch(notFound);
  }

  /** Who answered (provider AMD); a call not answered yet throws, so the job is tried again (its own attempts). */
  @Process({ name: 'machine-detection', concurrency: 8 })
  async machineDetection(job: Job<Jobs['machine-detection']>): Promise<void> {
    const { workspaceId, callId, report } = job.data;
    await this.voicemail.report(workspaceId, callId, report).catch(notFound);
  }

  @Process({ name: 'ring-timeout', concurrency: 8 })
  ringTimeout(job: Job<Jobs['ring-timeout']>): Promise<void> {
    return this.timers.ringTimeout(job.data.workspaceId, job.data.callId);
  }

  @Process({ name: 'max-duration', concurrency: 8 })
  maxDuration(job: Job<Jobs['max-duration']>): Promise<void> {
    return this.timers.maxDuration(job.data.workspaceId, job.data.callId);
  }

  @Process({ name: 'silence-timeout', concurrency: 8 })
  silence(job: Job<Jobs['silence-timeout']>): Promise<void> {
    return this.timers.silenceTimeout(job.data.workspaceId, job.data.callId, job.data.activityMs);
  }

  /** Every 30 s: the concurrency sets become what PostgreSQL says is live. */
  @Process('reconcile-slots')
  async reconcile(): Promise<{ removed: number }> {
    const removed = await this.slots.rebuild(await this.calls.liveCallsOfAllWorkspaces());
    if (removed) this.logger.log({ removed }, 'concurrency slots returned by the reconciler');
    return { removed };
  }
}

/** A call deleted with its workspace leaves nothing to move. */
function notFound(err: unknown): void {
  if (err instanceof CallNotFound) return;
  throw err;
}
