import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { InboundMessagesService } from '../inbound-messages.service';
import { InboundQueue } from '../inbound-queue';
import { MessageSender } from '../message-sender';
import { MessageStatusService } from '../message-status.service';
import { ProviderMessagesRepository } from '../messaging.repositories';
import { WhatsappTemplatesService } from '../whatsapp-templates.service';

type Jobs = JobPayloads['messaging'];

/** The messaging queue: inbound threads, sending, delivery statuses and template reviews. */
@Processor(QUEUES.messaging)
export class MessagingProcessor {
  private readonly logger = new Logger(MessagingProcessor.name);

  constructor(
    private readonly inboundQueue: InboundQueue,
    private readonly inbound: InboundMessagesService,
    private readonly sender: MessageSender,
    private readonly status: MessageStatusService,
    private readonly records: ProviderMessagesRepository,
    private readonly templates: WhatsappTemplatesService,
  ) {
    // Where the workers run, a hook that finds its thread idle drains it in this process (no job).
    inboundQueue.drainHere((item) => this.inbound.process(item));
  }

  // Each drain works through a thread's backlog; 16 per process cover 100 messages/s at ~100 ms a turn, and fewer
  // turns at once leave the event loop to the hooks (64 kept the loop busy with interleaved turns).
  @Process({ name: 'drain', concurrency: 16 })
  drain(job: Job<Jobs['drain']>): Promise<void> {
    return this.inboundQueue.drain(job.data.thread, (item) => this.inbound.process(item));
  }

  /** Threads a stopped process held (taken in its hooks) get a drain job; repeatable, every 30 s. */
  @Process({ name: 'recover-threads', concurrency: 1 })
  async recoverThreads(): Promise<{ resumed: number }> {
    return { resumed: await this.inboundQueue.recover() };
  }

  @Process({ name: 'send', concurrency: 32 })
  send(job: Job<Jobs['send']>): Promise<void> {
    return this.sender.deliver(job.data.workspaceId, job.data.messageId, {
      lastAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
    });
  }

  @Process({ name: 'sandbox-status', concurrency: 16 })
  async sandboxStatus(job: Job<Jobs['sandbox-status']>): Promise<void> {
    const { workspaceId, messageId, status } = job.data;
    const error =
      status === 'failed'
        ? { code: 'SANDBOX_UNREACHABLE', message: 'The sandbox destination is unreachable' }
        : null;
    await this.status.apply(workspaceId, messageId, status, error);
  }

  /**
   * A status found by the provider's id (Meta's wamid) can arrive before the send stored that id: the job is tried
   * again with backoff (META_STATUS_RETRY) until the message has it, and dropped after the last try. One found
   * by our id (Twilio's callback path) names a message stored before it was sent: not found, it is not ours.
   */
  @Process({ name: 'provider-status', concurrency: 16 })
  async providerStatus(job: Job<Jobs['provider-status']>): Promise<void> {
    const { provider, messageId, providerMessageId, status, error } = job.data;
    const found = await this.records.locate({ id: messageId, provider, providerMessageId });
    if (found) return void (await this.status.apply(found.workspaceId, found.id, status, error));
    if (messageId || !providerMessageId) return;
    if (job.attemptsMade + 1 < (job.opts.attempts ?? 1))
      throw new Error('No message has this provider id yet: tried again');
    this.logger.warn({ provider, providerMessageId, status }, 'status for a message never stored: dropped');
  }

  @Process({ name: 'template-status', concurrency: 8 })
  templateStatus(job: Job<Jobs['template-status']>): Promise<void> {
    return this.templates.applyStatus(job.data);
  }
}
