import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { isDeepStrictEqual } from 'node:util';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { OutboxService } from '@/modules/events/outbox.service';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import { MessagingProviderError } from '@/providers/messaging/messaging.port';
import { MetaMessaging } from '@/providers/messaging/meta.messaging';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { CreateTemplateDto, ListTemplatesQuery } from './dto/whatsapp.dto';
import { SyncResultResponse, TemplateResponse } from './dto/whatsapp.response';
import { templateStatusOf, WhatsappTemplate } from './messaging.entities';
import { templateBody } from './template-text';
import { TemplateSettingsRepository, WhatsappTemplatesRepository } from './templates.repositories';

interface Waba {
  wabaId: string;
  provider: 'sandbox' | 'meta';
  phoneNumberId: string;
  number: string;
}

/** Whether Meta's copy differs from ours in any synced field (jsonb reorders keys, so compared deeply). */
const changed = (local: WhatsappTemplate, remote: Partial<WhatsappTemplate>): boolean =>
  Object.entries(remote).some(([k, v]) => !isDeepStrictEqual(local[k as keyof WhatsappTemplate], v));

const providerError = (err: MessagingProviderError) =>
  new AppException('PROVIDER_ERROR', err.message, {
    details: JSON.stringify({ code: err.code, message: err.message }),
  });

/**
 * WhatsApp templates: created at Meta (sandbox: approved after SANDBOX_ANSWER_DELAY_MS), synced from every WABA of
 * the workspace, deleted there too; status changes emit `whatsapp_template_status`.
 */
@Injectable()
export class WhatsappTemplatesService {
  private readonly logger = new Logger(WhatsappTemplatesService.name);

  constructor(
    private readonly templates: WhatsappTemplatesRepository,
    private readonly settings: TemplateSettingsRepository,
    private readonly numbers: PhoneNumbersService,
    private readonly meta: MetaMessaging,
    private readonly outbox: OutboxService,
    private readonly unitOfWork: UnitOfWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectQueue(QUEUES.messaging) private readonly queue: Queue<JobPayloads['messaging']['template-status']>,
  ) {}

  async list(workspaceId: WorkspaceId, q: ListTemplatesQuery): Promise<Page<TemplateResponse>> {
    const { skip, take } = skipTake(q);
    const [rows, total] = await this.templates.search(workspaceId, q, skip, take);
    const numbers = await this.numberMap(workspaceId);
    return pageOf(
      rows.map((t) => TemplateResponse.of(t, numbers.get(t.phoneNumberId ?? '') ?? null)),
      total,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<WhatsappTemplate> {
    const t = await this.templates.findById(workspaceId, id);
    if (!t) throw AppException.notFound('Template');
    return t;
  }

  async read(workspaceId: WorkspaceId, id: string): Promise<TemplateResponse> {
    const t = await this.get(workspaceId, id);
    return TemplateResponse.of(t, await this.numberOf(workspaceId, t));
  }

  async create(workspaceId: WorkspaceId, dto: CreateTemplateDto): Promise<TemplateResponse> {
    const { content, parameterCount } = templateBody(dto.components);
    const waba = await this.waba(workspaceId, dto);
    if (
      await this.templates.exists(workspaceId, {
        wabaId: waba.wabaId,
        name: dto.name,
        language: dto.language,
      })
    )
      throw AppException.conflict(`A template ${dto.name} (${dto.language}) exists already in this WABA`);
    let templateId: string | null = null;
    if (waba.provider === 'meta') {
      const created = await this.meta
        .create(waba.wabaId, {
          name: dto.name,
          language: dto.language,
          category: dto.category,
          components: dto.components,
        })
        .catch((err: unknown) => {
          throw err instanceof MessagingProviderError ? providerError(err) : err;
        });
      templateId = created.id;
    }
    const template = this.templates.build(workspaceId, {
      wabaId: waba.wabaId,
      phoneNumberId: waba.phoneNumberId,
      provider: waba.provider,
      name: dto.name,
      language: dto.language,
      category: dto.category,
      status: 'PENDING',
      rejectionReason: null,
      components: dto.components,
      content,
      parameterCount,
      templateId,
    });
    try {
      await this.templates.save(workspaceId, template);
    } catch (err) {
      if ((err as { driverError?: { code?: string } }).driverError?.code === '23505')
        throw AppException.conflict(`A template ${dto.name} (${dto.language}) exists already in this WABA`);
      throw err;
    }
    if (waba.provider === 'sandbox')
      await this.queue.add(
        'template-status',
        {
          workspaceId,
          templateId: template.id,
          status: dto.name.startsWith('reject_') ? 'REJECTED' : 'APPROVED',
          reason: dto.name.startsWith('reject_') ? 'INVALID_FORMAT' : null,
        },
        { delay: this.config.telephony.sandboxAnswerDelayMs, jobId: `template:${template.id}` },
      );
    return TemplateResponse.of(template, waba.number);
  }

  /** Deletes the template here and at Meta (by name); its settings become inactive. */
  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    const t = await this.get(workspaceId, id);
    if (t.provider === 'meta')
      await this.meta.remove(t.wabaId, t.name).catch((err: unknown) => {
        throw err instanceof MessagingProviderError ? providerError(err) : err;
      });
    await this.unitOfWork.run(async (m) => {
      await this.settings.deactivate(workspaceId, id, m);
      await this.templates.delete(workspaceId, { id }, m);
    });
  }

  /** Pulls every template of the workspace's Meta WABAs; upserts by (WABA, name, language), marks vanished DELETED. */
  async sync(workspaceId: WorkspaceId): Promise<SyncResultResponse> {
    const result = { created: 0, updated: 0, deleted: 0 };
    for (const waba of await this.wabas(workspaceId)) {
      if (waba.provider !== 'meta') continue;
      const remote = await this.meta.list(waba.wabaId).catch((err: unknown) => {
        throw err instanceof MessagingProviderError ? providerError(err) : err;
      });
      const local = await this.templates.find(workspaceId, { where: { wabaId: waba.wabaId } });
      const key = (name: string, language: string) => `${name}\u0000${language}`;
      const byKey = new Map(local.map((t) => [key(t.name, t.language), t]));
      for (const r of remote) {
        const found = byKey.get(key(r.name, r.language));
        byKey.delete(key(r.name, r.language));
        let body: { content: string; parameterCount: number };
        try {
          body = templateBody(r.components);
        } catch {
          body = { content: '', parameterCount: 0 };
        }
        // Meta's own values in ours; one we do not know keeps the stored status (PENDING for a new template).
        const status = templateStatusOf(r.status) ?? found?.status ?? 'PENDING';
        const fields = {
          category: r.category,
          status,
          rejectionReason: r.rejectedReason,
          components: r.components,
          templateId: r.id,
          ...body,
        };
        if (!found) {
          await this.templates.save(
            workspaceId,
            this.templates.build(workspaceId, {
              wabaId: waba.wabaId,
              phoneNumberId: waba.phoneNumberId,
              provider: 'meta',
              name: r.name,
              language: r.language,
              ...fields,
            }),
          );
          result.created++;
        } else if (changed(found, fields)) {
          await this.move(workspaceId, found.id, status, r.rejectedReason, fields);
          result.updated++;
        }
      }
      for (const gone of byKey.values())
        if (gone.status !== 'DELETED') {
          await this.move(workspaceId, gone.id, 'DELETED', null);
          result.deleted++;
        }
    }
    return result;
  }

  /** A review outcome: the sandbox's (by our id) or Meta's `message_template_status_update` (by its id). */
  async applyStatus(job: JobPayloads['messaging']['template-status']): Promise<void> {
    const targets =
      job.workspaceId && job.templateId
        ? [{ workspaceId: job.workspaceId, id: job.templateId }]
        : job.providerTemplateId
          ? await this.templates.locate(job.providerTemplateId)
          : [];
    const status = templateStatusOf(job.status);
    if (!status) {
      this.logger.warn(
        { status: job.status, targets: targets.length },
        'template status not known: left as it was',
      );
      return;
    }
    for (const t of targets) await this.move(t.workspaceId, t.id, status, job.reason ?? null);
  }

  /** Moves the status (and other fields) under the row's lock; the event when the status changed. */
  private async move(
    workspaceId: WorkspaceId,
    id: string,
    status: string,
    reason: string | null,
    fields: Partial<WhatsappTemplate> = {},
  ): Promise<void> {
    await this.unitOfWork.run(async (m) => {
      const t = await this.templates.lock(workspaceId, id, m);
      if (!t) return;
      const previous = t.status;
      Object.assign(t, fields, {
        status,
        rejectionReason: status === 'REJECTED' ? reason : t.rejectionReason,
      });
      await this.templates.save(workspaceId, t, m);
      if (previous !== status)
        await this.outbox.record(m, workspaceId, [
          {
            type: 'whatsapp_template_status',
            agentId: null,
            data: {
              template: TemplateResponse.of(t, await this.numberOf(workspaceId, t)),
              previous_status: previous,
            },
          },
        ]);
    });
  }

  /** The WABA named (by number or id), else the workspace's only one; none or several unnamed is 422. */
  private async waba(
    workspaceId: WorkspaceId,
    dto: { phone_number_uuid?: string; waba_id?: string },
  ): Promise<Waba> {
    const wabas = await this.wabas(workspaceId);
    if (dto.phone_number_uuid) {
      const found = wabas.find((w) => w.phoneNumberId === dto.phone_number_uuid);
      if (!found)
        throw AppException.invalid(
          'phone_number_uuid',
          'phone_number_uuid names no WhatsApp number with a WABA',
          'VALIDATION_ERROR',
        );
      return found;
    }
    if (dto.waba_id) {
      const found = wabas.find((w) => w.wabaId === dto.waba_id);
      if (!found)
        throw AppException.invalid('waba_id', 'waba_id names no WABA of this workspace', 'VALIDATION_ERROR');
      return found;
    }
    const distinct = [...new Map(wabas.map((w) => [w.wabaId, w])).values()];
    if (distinct.length !== 1)
      throw AppException.invalid(
        'waba_id',
        distinct.length
          ? 'The workspace has several WABAs: name one with waba_id'
          : 'The workspace has no WhatsApp number with a WABA',
        'VALIDATION_ERROR',
      );
    return distinct[0];
  }

  private async wabas(workspaceId: WorkspaceId): Promise<Waba[]> {
    const senders = await this.numbers.whatsappSenders(workspaceId);
    const out: Waba[] = [];
    for (const s of senders) {
      if (!s.wabaId) continue;
      const n = await this.numbers.find(workspaceId, s.id);
      if (n)
        out.push({
          wabaId: s.wabaId,
          provider: n.provider === 'sandbox' ? 'sandbox' : 'meta',
          phoneNumberId: n.id,
          number: n.number,
        });
    }
    return out;
  }

  private async numberMap(workspaceId: WorkspaceId): Promise<Map<string, string>> {
    return new Map((await this.wabas(workspaceId)).map((w) => [w.phoneNumberId, w.number]));
  }

  /** The template's WABA number (E.164) as reads answer it: null once that number serves WhatsApp no more. */
  private async numberOf(workspaceId: WorkspaceId, t: WhatsappTemplate): Promise<string | null> {
    if (!t.phoneNumberId) return null;
    return (await this.numberMap(workspaceId)).get(t.phoneNumberId) ?? null;
  }
}
