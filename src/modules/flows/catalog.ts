import { parseExpression } from 'cron-parser';
import type { FieldError } from '@/common/errors/app.exception';
import { fieldMessage, isIanaTimezone, isUuid, phoneNumberProblem } from '@/common/validation/validators';
import { CHANNELS, isVoiceChannel } from '@/modules/conversations/channels';
import { hasReference } from './steps/references';

/** One config key of a trigger or action: its JSON-schema shape, whether it is required, and a check. */
interface KeySpec {
  schema: Record<string, unknown>;
  required?: boolean;
  /** A problem with a present value (references are checked only at run time), or null. */
  check?: (v: unknown) => string | null;
}

export interface CatalogEntry {
  key: string;
  name: string;
  keys: Record<string, KeySpec>;
  output_example: unknown;
  /** A rule spanning keys, answering errors on named keys. */
  extra?: (config: Record<string, unknown>) => FieldError[];
}

const ENDED = ['completed', 'busy', 'no-answer', 'failed', 'canceled'];
const str = (max = 2000): KeySpec => ({
  schema: { type: 'string', maxLength: max },
  check: (v) =>
    typeof v === 'string' && v.length <= max ? null : `must be a string of at most ${max} characters`,
});
const uuid = (required = false): KeySpec => ({
  schema: { type: 'string', format: 'uuid' },
  required,
  check: (v) => (isUuid(v) ? null : 'must be a UUID'),
});
const phone = (required = false): KeySpec => ({
  schema: { type: 'string', example: '+14155550100' },
  required,
  check: phoneNumberProblem,
});
const oneOf = (values: readonly string[], required = false): KeySpec => ({
  schema: { type: 'string', enum: values },
  required,
  check: (v) => (values.includes(v as string) ? null : `must be one of ${values.join(', ')}`),
});
const listOf = (values: readonly string[]): KeySpec => ({
  schema: { type: 'array', items: { type: 'string', enum: values } },
  check: (v) =>
    Array.isArray(v) && v.every((x) => values.includes(x as string))
      ? null
      : `must be a list of ${values.join(', ')}`,
});
const object: KeySpec = {
  schema: { type: 'object' },
  check: (v) => (v && typeof v === 'object' && !Array.isArray(v) ? null : 'must be an object'),
};
const any = (required = false): KeySpec => ({ schema: {}, required });

function cronProblem(v: unknown): string | null {
  if (typeof v !== 'string' || v.trim().split(/\s+/).length !== 5)
    return 'must be a cron expression of 5 fields (minute hour day month weekday)';
  try {
    parseExpression(v);
    return null;
  } catch (err) {
    return `is not a valid cron expression (${(err as Error).message})`;
  }
}

const CONDITION_OPS = ['eq', 'ne', 'contains', 'gt', 'gte', 'lt', 'lte', 'exists', 'not_exists'];
function conditionsProblem(v: unknown): string | null {
  if (!Array.isArray(v) || !v.length) return 'must be a non-empty list of {left, op, right}';
  for (const c of v as Array<Record<string, unknown>>)
    if (!c || typeof c !== 'object' || !('left' in c) || !CONDITION_OPS.includes(c.op as string))
      return `each condition needs left and op (${CONDITION_OPS.join(', ')})`;
  return null;
}

const CONTACT = { uuid: '0190f0c1-0000-7000-8000-000000000001', name: 'Ada', phone_number: '+14155550100' };

export const TRIGGERS: CatalogEntry[] = [
  {
    key: 'inbound_call',
    name: 'Inbound call',
    keys: { agent_uuid: uuid(), phone_number_uuid: uuid() },
    output_example: {
      change: 'call_status',
      status: 'ringing',
      call: { uuid: CONTACT.uuid, direction: 'Inbound' },
    },
  },
  {
    key: 'call_ended',
    name: 'Call ended',
    keys: { agent_uuid: uuid(), direction: oneOf(['Inbound', 'Outbound']), statuses: listOf(ENDED) },
    output_example: { change: 'call_status', status: 'completed', call: { uuid: CONTACT.uuid } },
  },
  {
    key: 'call_voicemail',
    name: 'Call reached a voicemail',
    keys: { agent_uuid: uuid(), campaign_uuid: uuid() },
    output_example: {
      answered_by: 'machine',
      action: 'leave_message',
      machine_detection: { source: 'twilio', result: 'machine_end_beep', duration_ms: 4200 },
      call: { uuid: CONTACT.uuid, direction: 'Outbound', answered_by: 'machine' },
    },
  },
  {
    key: 'message_received',
    name: 'Message received',
    keys: {
      channels: listOf(CHANNELS.filter((c) => !isVoiceChannel(c))),
      agent_uuid: uuid(),
      contains: str(500),
    },
    output_example: { message: { direction: 'inbound', content: 'Hello' }, conversation_uuid: CONTACT.uuid },
  },
  {
    key: 'session_evaluated',
    name: 'Session evaluated',
    keys: { agent_uuid: uuid(), channel: oneOf(CHANNELS), feature: str(100), value: any() },
    output_example: { session: { uuid: CONTACT.uuid }, summary: 'Booked a visit', evaluation: [] },
  },
  {
    key: 'contact_created',
    name: 'Contact created',
    keys: { tag_uuid: uuid() },
    output_example: { contact: CONTACT },
  },
  {
    key: 'appointment_created',
    name: 'Appointment created',
    keys: { schedule_uuid: uuid() },
    output_example: {
      appointment: { uuid: CONTACT.uuid, title: 'Visit', start_time: '2026-12-01T09:00:00.000Z' },
    },
  },
  {
    key: 'schedule',
    name: 'Schedule (cron)',
    keys: {
      cron: { schema: { type: 'string', example: '0 9 * * 1-5' }, required: true, check: cronProblem },
      timezone: {
        schema: { type: 'string', example: 'Europe/Madrid' },
        check: (v) => (isIanaTimezone(v) ? null : 'must be an IANA time zone'),
      },
    },
    output_example: { fired_at: '2026-12-01T09:00:00.000Z' },
  },
  {
    key: 'webhook',
    name: 'Webhook',
    keys: {},
    output_example: { headers: { 'content-type': 'application/json' }, query: {}, body: { order: 42 } },
  },
];

export const ACTIONS: CatalogEntry[] = [
  {
    key: 'send_webhook',
    name: 'Send a webhook',
    keys: {
      url: {
        schema: { type: 'string', format: 'uri' },
        required: true,
        check: (v) => (typeof v === 'string' ? null : 'must be a URL'),
      },
      method: oneOf(['POST', 'PUT', 'PATCH']),
      headers: object,
      body: any(),
      secret: str(200),
    },
    output_example: { status_code: 200, body: { ok: true } },
  },
  {
    key: 'send_sms',
    name: 'Send an SMS',
    keys: { agent_uuid: uuid(true), to: phone(true), body: { ...str(1600), required: true } },
    output_example: { uuid: CONTACT.uuid, delivery_status: 'queued' },
  },
  {
    key: 'send_whatsapp_template',
    name: 'Send a WhatsApp template',
    keys: {
      agent_uuid: uuid(true),
      to: phone(true),
      template_setting_uuid: uuid(),
      template_uuid: uuid(),
      parameters: object,
    },
    output_example: { uuid: CONTACT.uuid, delivery_status: 'queued' },
    extra: (c) =>
      c.template_setting_uuid || c.template_uuid
        ? []
        : [
            {
              code: 'VALIDATION_ERROR',
              field: 'template_setting_uuid',
              message: 'template_setting_uuid or template_uuid is required',
            },
          ],
  },
  {
    key: 'start_call',
    name: 'Start a call',
    keys: {
      agent_uuid: uuid(true),
      to: phone(true),
      phone_number_uuid: uuid(),
      variables: object,
      // Unset: the agent's settings.voice.voicemail, as for POST /call.
      voicemail: object,
      // Unset: the agent's settings.voice.record, as for POST /call.
      record: {
        schema: { type: 'boolean' },
        check: (v) => (typeof v === 'boolean' ? null : 'must be a boolean'),
      },
    },
    output_example: { uuid: CONTACT.uuid, status: 'queued' },
  },
  {
    key: 'create_task',
    name: 'Create a task',
    keys: {
      title: { ...str(255), required: true },
      type: oneOf(['make_call', 'send_message'], true),
      agent_uuid: uuid(true),
      contact_uuid: uuid(),
      contact: object,
      scheduled_at: { ...str(40), required: true },
    },
    output_example: { uuid: CONTACT.uuid, status: 'scheduled' },
  },
  {
    key: 'add_tag',
    name: 'Add a tag to a contact',
    keys: { contact_uuid: uuid(true), tag_uuid: uuid(true) },
    output_example: CONTACT,
  },
  {
    key: 'update_contact_field',
    name: 'Update a contact field',
    keys: { contact_uuid: uuid(true), field: { ...str(100), required: true }, value: any(true) },
    output_example: CONTACT,
  },
  {
    key: 'create_appointment',
    name: 'Create an appointment',
    keys: {
      schedule_uuid: uuid(true),
      title: { ...str(255), required: true },
      contact_uuid: uuid(),
      start_time: str(40),
      end_time: str(40),
    },
    output_example: { uuid: CONTACT.uuid, title: 'Visit', status: 'pending' },
  },
  {
    key: 'condition',
    name: 'Condition',
    keys: {
      conditions: {
        schema: {
          type: 'array',
          items: {
            type: 'object',
            properties: { left: {}, op: { type: 'string', enum: CONDITION_OPS }, right: {} },
          },
        },
        required: true,
        check: conditionsProblem,
      },
      match: oneOf(['all', 'any']),
    },
    output_example: { result: true },
  },
];

const BY_KIND = {
  trigger: new Map(TRIGGERS.map((t) => [t.key, t])),
  action: new Map(ACTIONS.map((a) => [a.key, a])),
};

export function catalogEntry(kind: 'trigger' | 'action', key: string): CatalogEntry | undefined {
  return BY_KIND[kind].get(key);
}

/** The catalog as `GET /flow/catalog` answers it. */
export function catalogView() {
  const view = (e: CatalogEntry) => ({
    key: e.key,
    name: e.name,
    config_schema: {
      type: 'object',
      properties: Object.fromEntries(Object.entries(e.keys).map(([k, s]) => [k, s.schema])),
      required: Object.entries(e.keys)
        .filter(([, s]) => s.required)
        .map(([k]) => k),
    },
    output_example: e.output_example,
  });
  return { triggers: TRIGGERS.map(view), actions: ACTIONS.map(view) };
}

/**
 * Problems of a config: wrong formats (INVALID_FORMAT) and missing required values (VALIDATION_ERROR), each on
 * `config.<key>`. Values holding a reference are checked when the step runs.
 */
export function configErrors(entry: CatalogEntry, config: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, spec] of Object.entries(entry.keys)) {
    const v = config[key];
    const field = `config.${key}`;
    if (v === undefined || v === null || v === '') {
      if (spec.required) errors.push({ code: 'VALIDATION_ERROR', field, message: `${field} is required` });
      continue;
    }
    if (hasReference(v) || !spec.check) continue;
    const problem = spec.check(v);
    if (problem) errors.push({ code: 'INVALID_FORMAT', field, message: fieldMessage(field, problem) });
  }
  for (const e of entry.extra?.(config) ?? [])
    errors.push({ ...e, field: `config.${e.field}`, message: `config.${e.message}` });
  return errors;
}
