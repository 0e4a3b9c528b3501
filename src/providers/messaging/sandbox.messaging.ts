import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { randomBytes } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { sandboxOutcome } from '@/providers/telephony/sandbox-outcomes';
import type { DeliveryStatus, MessagingAdapter, OutboundMessage } from './messaging.port';

type StatusJob = JobPayloads['messaging']['sandbox-status'];

/**
 * Messages that need no account and no network: `queued` → `sent` → `delivered` (→ `read` on WhatsApp, Messenger
 * and Instagram), one SANDBOX_ANSWER_DELAY_MS apart, as delayed Bull jobs; a destination ending `0004` fails.
 */
@Injectable()
export class SandboxMessaging implements MessagingAdapter {
  readonly provider = 'sandbox';
  readonly simulated = true;
  readonly configured = true;

  constructor(
    @InjectQueue(QUEUES.messaging) private readonly queue: Queue<StatusJob>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async send(message: OutboundMessage): Promise<{ providerMessageId: string }> {
    const prefix = message.channel === 'sms' ? 'SM' : 'wamid.SB';
    const providerMessageId = `${prefix}${randomBytes(16).toString('hex')}`;
    const steps: DeliveryStatus[] =
      sandboxOutcome(message.to).call === 'failed' ? ['failed'] : ['sent', 'delivered'];
    if (steps.length > 1 && message.channel !== 'sms') steps.push('read');
    const delay = this.config.telephony.sandboxAnswerDelayMs;
    await Promise.all(
      steps.map((status, i) =>
        this.queue.add(
          'sandbox-status',
          { workspaceId: message.workspaceId, messageId: message.messageId, status },
          { jobId: `sandbox:${message.messageId}:${status}`, delay: delay * (i + 1) },
        ),
      ),
    );
    return { providerMessageId };
  }
}
