import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import type { PhoneNumber } from '@/modules/phone-numbers/phone-number.entity';
import {
  MessagingProviderError,
  MessagingChannel,
  TemplatePayload,
} from '@/providers/messaging/messaging.port';
import { MessagingRegistry } from '@/providers/messaging/messaging.registry';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { MessagingThread, ProviderMessage, TemplateRef } from './messaging.entities';
import { MessageStatusService } from './message-status.service';
import { ProviderMessagesRepository } from './messaging.repositories';

/** What sending needs of a number. */
export type LineNumber = Pick<PhoneNumber, 'id' | 'number' | 'provider'>;

export interface OutboundRecord {
  messageId: string;
  thread: MessagingThread;
  /** The number the message leaves from (none for Messenger and Instagram pages). */
  number: LineNumber | null;
  template?: { ref: TemplateRef; payload: TemplatePayload } | null;
  metadata?: Record<string, unknown>;
}

/** Outbound messages: the provider record at `queued`, then the `send` job hands it to the provider. */
@Injectable()
export class MessageSender {
  constructor(
    private readonly records: ProviderMessagesRepository,
    private readonly numbers: PhoneNumbersService,
    private readonly registry: MessagingRegistry,
    private readonly status: MessageStatusService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectQueue(QUEUES.messaging) private readonly queue: Queue<JobPayloads['messaging']['send']>,
  ) {}

  /** The provider serving a line: the number's, or for pages Meta when configured, else the sandbox. */
  providerOf(thread: MessagingThread, number: LineNumber | null): string {
    if (number) return this.registry.providerFor(number.provider, thread.channel as MessagingChannel);
    return this.config.meta.accessToken ? 'meta' : 'sandbox';
  }

  /**
   * Stores the message at `queued` and hands it to the provider: in a `send` job, or at once with `inline` (a reply
   * inside its thread's turn, so the replies of one conversation leave in order; the job remains the fallback).
   * `inline` carries the message's text, so nothing is read back; `alongside` rows (the inbound message's provider
   * side) are inserted in the same statement.
   */
  async record(
    workspaceId: WorkspaceId,
    out: OutboundRecord,
    options: { inline?: { text: string }; alongside?: ProviderMessage[] } = {},
  ): Promise<void> {
    const record = this.build(workspaceId, out);
    await this.records.insertNew(workspaceId, [...(options.alongside ?? []), record]);
    if (options.inline) {
      try {
        return await this.hand(record, options.inline.text, {});
      } catch {
        // Not a provider refusal (those end the message failed): the job retries it.
      }
    }
    await this.queueSend(workspaceId, out.messageId);
  }

  /**
   * Stores the message at `queued` in the caller's transaction (the agent's message's, with what else must commit
   * with it); `queueSend` hands it to the provider once that transaction has committed.
   */
  async recordIn(tx: EntityManager, workspaceId: WorkspaceId, out: OutboundRecord): Promise<void> {
    await this.records.insertNew(workspaceId, [this.build(workspaceId, out)], tx);
  }

  /** The `send` job of a stored message (one per message, by its id). */
  async queueSend(workspaceId: WorkspaceId, messageId: string): Promise<void> {
    await this.queue.add('send', { workspaceId, messageId }, { jobId: `send:${messageId}` });
  }

  /** The provider record of an outbound message, at `queued`. */
  private build(workspaceId: WorkspaceId, out: OutboundRecord): ProviderMessage {
    const provider = this.providerOf(out.thread, out.number);
    return this.records.build(workspaceId, {
      id: out.messageId,
      conversationId: out.thread.id,
      phoneNumberId: out.number?.id ?? null,
      channel: out.thread.channel,
      direction: 'outbound',
      fromAddress: out.number?.number ?? out.thread.pageId ?? '',
      toAddress: out.thread.customerAddress,
      provider,
      providerMessageId: null,
      deliveryStatus: 'queued',
      error: null,
      statusUpdatedAt: new Date(),
      template: out.template?.ref ?? null,
      metadata: {
        ...(out.metadata ?? {}),
        ...(out.template ? { template_payload: out.template.payload } : {}),
      },
      isSimulation: this.registry.for(provider).simulated,
    });
  }

  /**
   * The `send` job: once per message (a provider id set means it left). A refusal ends it `failed`; a transient
   * failure (provider unreachable, 5xx, 429) throws so the job tries again, and ends it `failed` on the last try.
   */
  async deliver(
    workspaceId: WorkspaceId,
    messageId: string,
    options: { lastAttempt?: boolean } = {},
  ): Promise<void> {
    const record = await this.records.findById(workspaceId, messageId);
    if (!record || record.providerMessageId || record.deliveryStatus !== 'queued') return;
    const view = (await this.records.view(workspaceId, messageId))!;
    await this.hand(record, view.content, options);
  }

  /** Hands a queued record to its provider and keeps the provider's id; a refusal ends it `failed`. */
  private async hand(
    record: ProviderMessage,
    text: string,
    options: { lastAttempt?: boolean },
  ): Promise<void> {
    const { workspaceId, id: messageId } = record;
    const { template_payload: payload } = record.metadata as { template_payload?: TemplatePayload };
    try {
      const from = await this.senderAddress(workspaceId, record.channel as MessagingChannel, record);
      const { providerMessageId } = await this.registry.for(record.provider).send({
        workspaceId,
        messageId,
        channel: record.channel as MessagingChannel,
        from,
        to: record.toAddress,
        text,
        template: payload,
      });
      await this.records.setProviderId(workspaceId, messageId, providerMessageId);
    } catch (err) {
      if (!(err instanceof MessagingProviderError)) throw err;
      if (err.transient && !options.lastAttempt) throw err;
      await this.status.apply(workspaceId, messageId, 'failed', { code: err.code, message: err.message });
    }
  }

  /** Meta sends WhatsApp from its phone_number_id; SMS leaves from the E.164 number; pages from the page id. */
  private async senderAddress(
    workspaceId: WorkspaceId,
    channel: MessagingChannel,
    record: { phoneNumberId: string | null; fromAddress: string; provider: string },
  ): Promise<string> {
    if (channel !== 'whatsapp' || record.provider !== 'meta' || !record.phoneNumberId)
      return record.fromAddress;
    const sender = await this.numbers.whatsappSender(workspaceId, record.phoneNumberId);
    if (!sender) throw new MessagingProviderError('NOT_CONFIGURED', 'WhatsApp is not set up on this number');
    return sender.metaPhoneNumberId;
  }
}
