import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { randomBytes } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { sandboxOutcome } from './sandbox-outcomes';
import {
  DETECTION_RETRY,
  type DialRequest,
  type ForwardTarget,
  type ProviderCallRef,
  type TelephonyAdapter,
} from './telephony.port';

type CallsJob = JobPayloads['calls']['provider-event'] | JobPayloads['calls']['machine-detection'];

/**
 * The telephony provider that needs no account and no network: a call rings at once and takes its destination's
 * outcome after SANDBOX_ANSWER_DELAY_MS. The provider's callbacks are Bull delayed jobs, so they survive restarts.
 */
@Injectable()
export class SandboxTelephony implements TelephonyAdapter {
  readonly provider = 'sandbox';
  readonly simulated = true;

  constructor(
    @InjectQueue(QUEUES.calls) private readonly queue: Queue<CallsJob>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async dial(request: DialRequest): Promise<{ providerCallId: string }> {
    const providerCallId = `SB${randomBytes(16).toString('hex')}`;
    const { workspaceId, callId } = request;
    await this.queue.add(
      'provider-event',
      { workspaceId, callId, event: { status: 'ringing', detail: { CallSid: providerCallId } } },
      { jobId: `sandbox:${callId}:ringing` },
    );
    const outcome = sandboxOutcome(request.to);
    if (outcome.call)
      await this.queue.add(
        'provider-event',
        {
          workspaceId,
          callId,
          event: { status: outcome.call, error: outcome.error, detail: { CallSid: providerCallId } },
        },
        { jobId: `sandbox:${callId}:outcome`, delay: this.config.telephony.sandboxAnswerDelayMs },
      );
    // Detection answers one more delay after the pick-up, as Twilio's asynchronous AMD does after it.
    if (outcome.call === 'in-progress' && outcome.answeredBy && request.machineDetection)
      await this.queue.add(
        'machine-detection',
        {
          workspaceId,
          callId,
          report: {
            source: 'sandbox',
            answeredBy: outcome.answeredBy,
            durationMs: this.config.telephony.sandboxAnswerDelayMs,
            detail: { CallSid: providerCallId, AnsweredBy: outcome.answeredBy },
          },
        },
        {
          jobId: `sandbox:${callId}:amd`,
          delay: 2 * this.config.telephony.sandboxAnswerDelayMs,
          ...DETECTION_RETRY,
        },
      );
    return { providerCallId };
  }

  /** Nothing to tell: the sandbox has no far end. */
  async hangup(_call: ProviderCallRef, _answered: boolean): Promise<void> {}

  /** Nothing to press on: the digits are only recorded (the call's provider log and the agent's message). */
  sendDigits(call: ProviderCallRef, _digits: string): Promise<Record<string, unknown>> {
    return Promise.resolve({ CallSid: call.providerCallId });
  }

  forward(_call: ProviderCallRef, target: ForwardTarget): Promise<{ connected: boolean }> {
    // Extensions dial through the agent's PBX connector: without one the forward fails; with one it takes the
    // outcome of the extension's last digits, like a number.
    if (target.type === 'extension' && !target.sip) return Promise.resolve({ connected: false });
    return Promise.resolve({ connected: sandboxOutcome(target.value).forwardConnects });
  }
}
