import { Inject, Injectable, Logger } from '@nestjs/common';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { SecretBox } from '@/common/crypto/secret-box';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { TranscriptConversationsService } from '@/modules/conversations/transcript-conversations.service';
import { DeliveryService } from '@/modules/events/delivery.service';
import { OutboxService } from '@/modules/events/outbox.service';
import {
  TimedTranscript,
  TRANSCRIPTION,
  TranscriptionError,
  TranscriptionPort,
} from '@/providers/transcription/transcription.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { downloadAudio, transcribeTrack } from './audio-tracks';
import { mergeTracks, StoredSegment } from './transcript-merge';
import { Transcription } from './transcription.entity';
import { TranscriptionsRepository } from './transcriptions.repository';
import { TranscriptionsService } from './transcriptions.service';

/** Attempts before a passing failure becomes `failed`. */
export const MAX_ATTEMPTS = 5;
/** Backoff of the n-th retry: 2 s, 4 s, 8 s, 16 s. */
export const retryDelayMs = (attempts: number): number => 2000 * 2 ** Math.max(0, attempts - 1);

/**
 * The work of a transcription: pending → processing under the row lock, the audio fetched, each track through the
 * STT port, the tracks merged by time, the QA conversation when asked, then completed (or back to pending on a
 * passing error, or failed) with its event and the request's own webhook in the same transaction.
 */
@Injectable()
export class TranscriptionRunner {
  private readonly logger = new Logger(TranscriptionRunner.name);

  constructor(
    private readonly rows: TranscriptionsRepository,
    private readonly service: TranscriptionsService,
    private readonly unitOfWork: UnitOfWork,
    private readonly outbox: OutboxService,
    private readonly deliveries: DeliveryService,
    private readonly secrets: SecretBox,
    private readonly conversations: TranscriptConversationsService,
    @Inject(TRANSCRIPTION) private readonly stt: TranscriptionPort,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async run(workspaceId: WorkspaceId, id: string): Promise<void> {
    const t = await this.unitOfWork.run(async (m) => {
      const row = await this.rows.lock(workspaceId, id, m);
      if (!row || row.status !== 'pending') return null;
      row.status = 'processing';
      row.attempts += 1;
      return this.rows.save(workspaceId, row, m);
    });
    if (!t) return;
    try {
      const { agent, customer } = await this.tracks(t);
      const segments = mergeTracks(agent, customer);
      if (t.qaAgentId && !t.conversationId) await this.recordConversation(t, segments);
      await this.complete(t, agent, customer, segments);
    } catch (err) {
      await this.fail(t, err);
    }
  }

  private async tracks(t: Transcription) {
    if (!this.stt.configured) throw new TranscriptionError(this.stt.reason);
    await fsp.mkdir(this.service.storageDir, { recursive: true });
    const allowPrivate = this.config.network.allowPrivateTargets;
    if (!t.filePath && t.voiceUrl) {
      const dest = path.join(this.service.storageDir, t.id);
      const { bytes } = await downloadAudio(t.voiceUrl, dest, allowPrivate);
      await this.rows.save(t.workspaceId, Object.assign(t, { filePath: dest, fileBytes: bytes }));
    }
    if (!t.customerFilePath && t.customerVoiceUrl) {
      const dest = path.join(this.service.storageDir, `${t.id}.customer`);
      await downloadAudio(t.customerVoiceUrl, dest, allowPrivate);
      await this.rows.save(t.workspaceId, Object.assign(t, { customerFilePath: dest }));
    }
    const options = {
      language: t.possibleLanguage ?? undefined,
      prompt: t.possibleConversation ?? undefined,
    };
    const agent = await transcribeTrack(this.stt, t.filePath!, t.fileName ?? 'audio', options);
    const customer = t.customerFilePath
      ? await transcribeTrack(this.stt, t.customerFilePath, 'customer', options)
      : null;
    return { agent, customer };
  }

  /** The transcript as a phone conversation of the QA agent, its one session ended so it is evaluated. */
  private async recordConversation(t: Transcription, segments: StoredSegment[]): Promise<void> {
    const turns = segments.map((s) => ({
      sender: s.speaker === 'customer' ? ('customer' as const) : ('agent' as const),
      content: s.text,
    }));
    // Without a second track nobody is known to be the customer; the evaluation still needs a customer side.
    if (!turns.some((x) => x.sender === 'customer')) for (const x of turns) x.sender = 'customer';
    const rec = await this.conversations.record(t.workspaceId, {
      agentId: t.qaAgentId!,
      contactId: t.contactId,
      phone: t.customerPhone,
      turns,
    });
    t.conversationId = rec.conversationId;
    t.sessionId = rec.sessionId;
    await this.rows.save(t.workspaceId, t);
  }

  private async complete(
    t: Transcription,
    agent: TimedTranscript,
    customer: TimedTranscript | null,
    segments: StoredSegment[],
  ): Promise<void> {
    const changes: Partial<Transcription> = {
      status: 'completed',
      error: null,
      text: customer ? segments.map((s) => s.text).join(' ') : agent.text,
      segments,
      language: agent.language ?? customer?.language ?? t.possibleLanguage,
      duration: Math.max(agent.duration ?? 0, customer?.duration ?? 0) || null,
      conversationId: t.conversationId,
      sessionId: t.sessionId,
      processedAt: new Date(),
    };
    // The event body is read before the transaction, so it never waits on a second connection.
    const after = Object.assign(
      Object.create(Object.getPrototypeOf(t) as object) as Transcription,
      t,
      changes,
    );
    const data = {
      transcription: await this.service.view(after),
      transcript: await this.service.transcriptOf(after),
    };
    await this.finish(t, changes, 'transcription_completed', data);
  }

  /** A passing error with attempts left goes back to pending and is queued again later; else failed. */
  private async fail(t: Transcription, err: unknown): Promise<void> {
    const known = err instanceof TranscriptionError;
    const reason = known ? err.message : `transcription failed: ${(err as Error).message}`;
    const transient = known ? err.transient : true;
    const retry = transient && t.attempts < MAX_ATTEMPTS;
    if (!known) this.logger.error({ err, transcriptionId: t.id }, 'transcription attempt failed');
    if (retry) {
      const moved = await this.finish(t, {
        status: 'pending',
        error: `retrying after: ${reason}`.slice(0, 2000),
      });
      if (moved) await this.service.enqueue(t.workspaceId, t.id, t.attempts, retryDelayMs(t.attempts));
      return;
    }
    const changes: Partial<Transcription> = {
      status: 'failed',
      error: reason.slice(0, 2000),
      processedAt: new Date(),
    };
    const after = Object.assign(
      Object.create(Object.getPrototypeOf(t) as object) as Transcription,
      t,
      changes,
    );
    await this.finish(t, changes, 'transcription_failed', { transcription: await this.service.view(after) });
  }

  /**
   * Moves a processing row (under its lock) and writes its event in the same transaction; false when another
   * worker moved it first. The request's own delivery is queued after commit.
   */
  private async finish(
    t: Transcription,
    changes: Partial<Transcription>,
    type?: 'transcription_completed' | 'transcription_failed',
    data?: Record<string, unknown>,
  ): Promise<boolean> {
    const result = await this.unitOfWork.run(async (m) => {
      const row = await this.rows.lock(t.workspaceId, t.id, m);
      if (!row || row.status !== 'processing') return null;
      await this.rows.save(t.workspaceId, Object.assign(row, changes), m);
      return { delivery: type && data ? await this.announce(m, row, type, data) : null };
    });
    if (result?.delivery)
      await this.deliveries.enqueue(
        t.workspaceId,
        result.delivery.id,
        new Date(result.delivery.next_attempt_at),
      );
    return !!result;
  }

  /** The event to workspace webhooks (and the QA agent's), and to the request's `webhook_url` when given. */
  private async announce(
    m: Transaction,
    t: Transcription,
    type: 'transcription_completed' | 'transcription_failed',
    data: Record<string, unknown>,
  ) {
    const [eventId] = await this.outbox.record(m, t.workspaceId, [{ type, agentId: t.qaAgentId, data }]);
    if (!t.webhookUrl) return null;
    return (
      (await this.deliveries.addRequestDelivery(
        m,
        t.workspaceId,
        { id: eventId, type },
        {
          subjectId: t.id,
          url: t.webhookUrl,
          bearerToken: t.webhookTokenCiphertext ? this.secrets.decrypt(t.webhookTokenCiphertext) : null,
        },
      )) ?? null
    );
  }
}
