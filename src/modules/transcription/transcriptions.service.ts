import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { SecretBox } from '@/common/crypto/secret-box';
import { AppException, FieldError } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { toFieldErrors } from '@/common/http/validation';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AgentsService } from '@/modules/agents/agents.service';
import { checkMetadata } from '@/modules/calls/runtime/call-context';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { EvaluationService } from '@/modules/evaluation/evaluation.service';
import { audioExt, readHead } from '@/modules/knowledge/importers/detect-kind';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { CreateTranscriptionDto, ListTranscriptionsQuery } from './dto/requests';
import { QaStatus, TranscriptionResponse, TranscriptResponse } from './dto/responses';
import { plainText } from './transcript-merge';
import { Transcription } from './transcription.entity';
import { TranscriptionsRepository } from './transcriptions.repository';

/** The upload as multer left it on disk. */
export interface UploadedAudio {
  path: string;
  originalname: string;
  size: number;
}

type TranscribeJob = JobPayloads['transcription']['transcribe'];

/** One job per attempt and round (a retry starts a new round), so a repeated add is dropped by Bull. */
export const transcribeJobId = (id: string, attempt: number, round: number) =>
  `transcribe:${id}:${round}:${attempt}`;

/** Transcription requests: submit, read, retry, delete. The work itself runs in TranscriptionRunner. */
@Injectable()
export class TranscriptionsService {
  constructor(
    private readonly rows: TranscriptionsRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly agents: AgentsService,
    private readonly contacts: ContactsService,
    private readonly evaluation: EvaluationService,
    private readonly secrets: SecretBox,
    @InjectQueue(QUEUES.transcription) private readonly queue: Queue<TranscribeJob>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get storageDir(): string {
    return path.join(this.config.storageDir, 'transcriptions');
  }

  async create(
    workspaceId: WorkspaceId,
    body: unknown,
    file: UploadedAudio | undefined,
  ): Promise<TranscriptionResponse> {
    let placed: string | undefined;
    try {
      const raw = { ...((body ?? {}) as Record<string, unknown>) };
      const dto = plainToInstance(CreateTranscriptionDto, raw);
      const errors: FieldError[] = toFieldErrors(await validate(dto, { whitelist: true }));
      if (file && file.size === 0)
        errors.push({ code: 'VALIDATION_ERROR', field: 'voice_file', message: 'voice_file is empty' });
      if (!file && !dto.voice_url)
        errors.push({
          code: 'VALIDATION_ERROR',
          field: 'voice_file',
          message: 'voice_file or voice_url is required',
        });
      if (file && dto.voice_url)
        errors.push({
          code: 'VALIDATION_ERROR',
          field: 'voice_url',
          message: 'give voice_file or voice_url, not both',
        });
      if (errors.length) throw AppException.validation(errors);
      if (file && !audioExt(await readHead(file.path, 64)))
        throw AppException.invalid(
          'voice_file',
          'voice_file is not audio (WAV, MP3, OGG, FLAC, WebM or M4A)',
        );
      const metadata = this.metadataOf(dto.metadata);
      for (const [field, id] of [
        ['qa_agent_uuid', dto.qa_agent_uuid],
        ['coaching_agent_uuid', dto.coaching_agent_uuid],
      ] as const)
        if (id && !(await this.agents.exists(workspaceId, id)))
          throw AppException.invalid(field, `${field} names no agent of this workspace`, 'VALIDATION_ERROR');
      const contact =
        (dto.customer_phone ? await this.contacts.findByPhone(workspaceId, dto.customer_phone) : null) ??
        (dto.customer_email ? await this.contacts.findByEmail(workspaceId, dto.customer_email) : null);
      const t = this.rows.build(workspaceId, {
        status: 'pending',
        error: null,
        attempts: 0,
        referenceId: dto.reference_id ?? null,
        fileName: file
          ? path.basename(file.originalname || 'audio').slice(0, 255)
          : fileNameOf(dto.voice_url!),
        fileBytes: file?.size ?? null,
        filePath: null,
        customerFilePath: null,
        voiceUrl: dto.voice_url ?? null,
        customerVoiceUrl: dto.customer_voice_url ?? null,
        duration: null,
        language: null,
        possibleLanguage: dto.possible_language ?? null,
        possibleConversation: dto.possible_conversation ?? null,
        contactId: contact?.id ?? null,
        customerPhone: dto.customer_phone ?? null,
        customerEmail: dto.customer_email ?? null,
        email: dto.email ?? null,
        webhookUrl: dto.webhook_url ?? null,
        webhookTokenCiphertext: dto.webhook_header_token
          ? this.secrets.encrypt(dto.webhook_header_token)
          : null,
        qaAgentId: dto.qa_agent_uuid ?? null,
        coachingAgentId: dto.coaching_agent_uuid ?? null,
        conversationId: null,
        sessionId: null,
        metadata: Object.keys(metadata).length ? metadata : null,
        text: null,
        segments: null,
        processedAt: null,
      });
      if (file) {
        await fsp.mkdir(this.storageDir, { recursive: true });
        placed = path.join(this.storageDir, t.id);
        await fsp.rename(file.path, placed);
        t.filePath = placed;
      }
      await this.rows.save(workspaceId, t);
      await this.enqueue(workspaceId, t.id, 0, 0);
      return TranscriptionResponse.of(t, t.qaAgentId ? 'pending' : 'none');
    } catch (err) {
      for (const leftover of [file?.path, placed])
        if (leftover) await fsp.rm(leftover, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Queues the attempt after `attempts` tries, `delayMs` from now. The runner takes only a pending row under its
   * lock, so a second job for the same attempt does nothing.
   */
  async enqueue(workspaceId: WorkspaceId, id: string, attempts: number, delayMs: number): Promise<void> {
    await this.queue.add(
      'transcribe',
      { workspaceId, transcriptionId: id },
      {
        jobId: transcribeJobId(id, attempts, Date.now()),
        delay: delayMs,
        attempts: 1,
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }

  async list(workspaceId: WorkspaceId, q: ListTranscriptionsQuery): Promise<Page<TranscriptionResponse>> {
    const [rows, total] = await this.rows.list(workspaceId, {
      status: q.status,
      referenceId: q.reference_id,
      contactId: q.contact_uuid,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
      ...skipTake(q),
    });
    return pageOf(await Promise.all(rows.map((t) => this.view(t))), total, q);
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<Transcription> {
    const t = await this.rows.findById(workspaceId, id);
    if (!t) throw AppException.notFound('Transcription');
    return t;
  }

  async read(workspaceId: WorkspaceId, id: string): Promise<TranscriptionResponse> {
    return this.view(await this.get(workspaceId, id));
  }

  async view(t: Transcription): Promise<TranscriptionResponse> {
    return TranscriptionResponse.of(t, await this.qaStatus(t));
  }

  /** `none` without a QA agent; else the evaluation's progress on the transcript's session. */
  async qaStatus(t: Transcription): Promise<QaStatus> {
    if (!t.qaAgentId) return 'none';
    if (t.status === 'failed') return 'failed';
    if (!t.sessionId) return 'pending';
    const e = await this.evaluation.forSession(t.workspaceId, t.sessionId).catch(() => null);
    if (!e) return 'failed';
    return e.status === 'evaluated' || e.status === 'not_evaluated' ? 'completed' : 'pending';
  }

  async transcript(workspaceId: WorkspaceId, id: string): Promise<TranscriptResponse> {
    const t = await this.get(workspaceId, id);
    if (t.status !== 'completed') throw AppException.conflict(`Transcription is ${t.status}`);
    return this.transcriptOf(t);
  }

  /** The transcript as answered and sent in `transcription_completed`. */
  async transcriptOf(t: Transcription): Promise<TranscriptResponse> {
    const segments = t.segments ?? [];
    const evaluation = t.sessionId
      ? await this.evaluation.forSession(t.workspaceId, t.sessionId).catch(() => null)
      : null;
    return {
      uuid: t.id,
      reference_id: t.referenceId,
      status: t.status,
      language: t.language,
      duration: t.duration,
      text: t.text ?? '',
      segments,
      conversation: {
        uuid: t.conversationId,
        plain: plainText(segments),
        messages: segments.map((s) => ({ role: s.speaker, content: s.text })),
      },
      session: t.sessionId
        ? { uuid: t.sessionId, type: 'voice', status: evaluation ? 'ended' : 'active' }
        : null,
      evaluations: evaluation?.records ?? [],
      processed_at: t.processedAt ? t.processedAt.toISOString() : null,
    };
  }

  /** A failed transcription back to `pending` with a fresh budget of attempts. */
  async retry(workspaceId: WorkspaceId, id: string): Promise<TranscriptionResponse> {
    const t = await this.unitOfWork.run(async (m) => {
      const row = await this.rows.lock(workspaceId, id, m);
      if (!row) throw AppException.notFound('Transcription');
      if (row.status !== 'failed')
        throw AppException.conflict(`Transcription is ${row.status}; only a failed one is retried`);
      row.status = 'pending';
      row.error = null;
      row.attempts = 0;
      return this.rows.save(workspaceId, row, m);
    });
    await this.enqueue(workspaceId, id, 0, 0);
    return this.view(t);
  }

  /** Removes the request, its audio and its transcript; a transcription being processed is 409. */
  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    const t = await this.unitOfWork.run(async (m) => {
      const row = await this.rows.lock(workspaceId, id, m);
      if (!row) throw AppException.notFound('Transcription');
      if (row.status === 'processing') throw AppException.conflict('Transcription is processing');
      await this.rows.delete(workspaceId, { id }, m);
      return row;
    });
    for (const f of [t.filePath, t.customerFilePath])
      if (f) await fsp.rm(f, { force: true }).catch(() => undefined);
  }

  private metadataOf(value: unknown): Record<string, unknown> {
    if (value === undefined || value === '') return {};
    let parsed = value;
    if (typeof value === 'string')
      try {
        parsed = JSON.parse(value);
      } catch {
        throw AppException.invalid('metadata', 'metadata must be a JSON object');
      }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw AppException.invalid('metadata', 'metadata must be a JSON object');
    return checkMetadata(parsed as Record<string, unknown>);
  }
}

function fileNameOf(url: string): string {
  try {
    return decodeURIComponent(path.basename(new URL(url).pathname)).slice(0, 255) || 'audio';
  } catch {
    return 'audio';
  }
}
