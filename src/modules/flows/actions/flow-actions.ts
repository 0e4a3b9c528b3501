import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { SlotsFull } from '@/common/errors/domain-errors';
import { answerBody, sendSignedWebhook } from '@/common/net/signed-webhook';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { CallPlacement } from '@/modules/calls/api/call-placement.service';
import { CreateCallDto } from '@/modules/calls/dto/requests';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { validateBody } from '@/modules/contacts/dto/validate-body';
import { AppointmentsService } from '@/modules/scheduling/appointments.service';
import { CreateAppointmentDto } from '@/modules/scheduling/dto/appointment.dto';
import {
  ActionContext,
  ActionHandler,
  FLOW_MESSAGING,
  FLOW_TASKS,
  FlowMessagingPort,
  FlowTasksPort,
  RetryStep,
  StepFailure,
} from './action';
import { evaluateCondition } from './condition';
import { asText } from '../steps/references';
import { Traced } from '@/common/telemetry/traced';
import { FLOW_STEP_SPAN } from '../flow-spans';

const WEBHOOK_TIMEOUT_MS = 10_000;
/** send_webhook: network errors and 5xx are tried twice more, 1 s then 4 s later. */
const WEBHOOK_RETRY_MS = [1_000, 4_000];
/** start_call without a free slot: tried again 5, 10 then 20 s later. */
const CALL_RETRY_MS = [5_000, 10_000, 20_000];

const CONTACT_FIELDS = new Set([
  'name',
  'surname',
  'email',
  'phone_number',
  'number_type',
  'country_code',
  'timezone',
  'primary_language',
  'preferred_contact_channel',
  'preferred_contact_time',
  'status',
  'pipeline_stage_uuid',
]);

/** `+2h`, `+30m`, `+1d` from now, or the value as given. */
export function relativeTime(v: unknown, now = Date.now()): unknown {
  const m = typeof v === 'string' ? /^\+(\d+)([mhd])$/.exec(v.trim()) : null;
  if (!m) return v;
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'];
  return new Date(now + Number(m[1]) * unit).toISOString();
}

/** What each action key does: the same services the API calls, so validation, blacklist and limits hold. */
@Injectable()
export class FlowActions {
  private readonly handlers: Record<string, ActionHandler>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly contacts: ContactsService,
    private readonly appointments: AppointmentsService,
    private readonly calls: CallPlacement,
    @Inject(FLOW_MESSAGING) private readonly messaging: FlowMessagingPort,
    @Inject(FLOW_TASKS) private readonly tasks: FlowTasksPort,
  ) {
    this.handlers = {
      send_webhook: (i, c) => this.sendWebhook(i, c),
      send_sms: (i, c) => this.messaging.sendSms(c.workspaceId, i),
      send_whatsapp_template: (i, c) => this.messaging.sendWhatsappTemplate(c.workspaceId, i),
      start_call: (i, c) => this.startCall(i, c),
      create_task: (i, c) =>
        this.tasks.createTask(c.workspaceId, { ...i, scheduled_at: relativeTime(i.scheduled_at) }),
      add_tag: (i, c) => this.addTag(i, c),
      update_contact_field: (i, c) => this.updateField(i, c),
      create_appointment: (i, c) => this.createAppointment(i, c),
      condition: async (i) => evaluateCondition(i),
    };
  }

  @Traced('flow.step', FLOW_STEP_SPAN)
  run(key: string, input: Record<string, unknown>, ctx: ActionContext): Promise<unknown> {
    const handler = this.handlers[key];
    if (!handler) throw new StepFailure('INVALID_FORMAT', `Unknown action ${key}`);
    return handler(input, ctx);
  }

  private async sendWebhook(i: Record<string, unknown>, c: ActionContext): Promise<unknown> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries((i.headers as Record<string, unknown>) ?? {}))
      if (v !== undefined && v !== null) headers[k.toLowerCase()] = asText(v);
    const retry = (message: string) => {
      const delay = WEBHOOK_RETRY_MS[c.attempt - 1];
      return delay === undefined
        ? new StepFailure('WEBHOOK_FAILED', message)
        : new RetryStep(delay, 'WEBHOOK_FAILED', message);
    };
    const { response: res, error } = await sendSignedWebhook(
      {
        url: String(i.url),
        body: JSON.stringify(i.body ?? {}),
        id: `msg_${c.executionId}_${c.stepNumber}`,
        secrets: typeof i.secret === 'string' && i.secret ? [i.secret] : [],
        userAgent: 'agent-platform-flows/1.0',
        headers,
        method: asText(i.method ?? 'POST'),
        timeoutMs: WEBHOOK_TIMEOUT_MS,
        maxBytes: 256 * 1024,
        // A flow calls the same endpoints again and again: kept-alive connections save a handshake per call.
        keepAlive: true,
      },
      { allowPrivate: this.config.network.allowPrivateTargets },
    );
    if (!res) {
      if (error.startsWith('refused')) throw new StepFailure('WEBHOOK_FAILED', error);
      throw retry(error);
    }
    if (res.status >= 500) throw retry(`HTTP ${res.status}`);
    if (res.status < 200 || res.status >= 300) throw new StepFailure('WEBHOOK_FAILED', `HTTP ${res.status}`);
    return { status_code: res.status, body: answerBody(res) };
  }

  private async startCall(i: Record<string, unknown>, c: ActionContext): Promise<unknown> {
    try {
      return await this.calls.place(c.workspaceId, validateBody(CreateCallDto, i));
    } catch (err) {
      const delay = CALL_RETRY_MS[c.attempt - 1];
      if (err instanceof SlotsFull && delay !== undefined) throw new RetryStep(delay, err.code, err.message);
      throw err;
    }
  }

  private async addTag(i: Record<string, unknown>, c: ActionContext): Promise<unknown> {
    const contact = await this.contacts.get(c.workspaceId, String(i.contact_uuid).toLowerCase());
    const tags = new Set((contact.tags ?? []).map((t) => t.id));
    tags.add(String(i.tag_uuid).toLowerCase());
    return this.contacts.toResponse(
      await this.contacts.update(c.workspaceId, contact.id, { tag_uuids: [...tags] }),
    );
  }

  private async updateField(i: Record<string, unknown>, c: ActionContext): Promise<unknown> {
    const field = String(i.field);
    const custom = /^custom_fields\.(.+)$/.exec(field);
    if (!custom && !CONTACT_FIELDS.has(field))
      throw AppException.invalid(
        'field',
        `field ${field} is not a contact field (use a built-in field or custom_fields.<key>)`,
      );
    const body = custom ? { custom_fields: { [custom[1]]: i.value } } : { [field]: i.value };
    return this.contacts.toResponse(
      await this.contacts.update(c.workspaceId, String(i.contact_uuid).toLowerCase(), body),
    );
  }

  private async createAppointment(i: Record<string, unknown>, c: ActionContext): Promise<unknown> {
    const body = { ...i, start_time: relativeTime(i.start_time), end_time: relativeTime(i.end_time) };
    const dto = validateBody(CreateAppointmentDto, body);
    const created = await this.appointments.create(c.workspaceId, dto);
    return this.appointments.toResponse(c.workspaceId, created);
  }
}
