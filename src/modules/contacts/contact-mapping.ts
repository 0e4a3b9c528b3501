import type { Contact } from './contact.entity';
import type { ContactResponse, CreateContactDto } from './dto/contact.dto';

/** The simple fields copied from a body to the entity (JSON key, entity property). */
const SIMPLE_FIELDS = [
  ['name', 'name'],
  ['surname', 'surname'],
  ['email', 'email'],
  ['phone_number', 'phoneNumber'],
  ['number_type', 'numberType'],
  ['country_code', 'countryCode'],
  ['timezone', 'timezone'],
  ['primary_language', 'primaryLanguage'],
  ['preferred_contact_channel', 'preferredContactChannel'],
  ['preferred_contact_time', 'preferredContactTime'],
] as const;

/** The contact as the API answers it. */
export function contactResponse(c: Contact): ContactResponse {
  return {
    uuid: c.id,
    name: c.name,
    surname: c.surname,
    email: c.email,
    phone_number: c.phoneNumber,
    number_type: c.numberType,
    country_code: c.countryCode,
    timezone: c.timezone,
    primary_language: c.primaryLanguage,
    preferred_contact_channel: c.preferredContactChannel,
    preferred_contact_time: c.preferredContactTime,
    status: c.status,
    custom_fields: c.customFields,
    tags: [...(c.tags ?? [])]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((t) => ({ uuid: t.id, name: t.name, color: t.color })),
    pipeline_stage_uuid: c.pipelineStageId,
    pipeline_stage_changed_at: c.pipelineStageChangedAt?.toISOString() ?? null,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/** Copies the simple fields present in a body onto the contact (null clears). */
export function applyFields(contact: Contact, body: Partial<CreateContactDto>): void {
  for (const [json, prop] of SIMPLE_FIELDS) {
    const value = body[json];
    if (value !== undefined) contact[prop] = value ?? null;
  }
}

/** Sets every simple field of a new contact: the body's value, null for those it leaves out. */
export function setNewFields(contact: Contact, body: Partial<CreateContactDto>): void {
  for (const [json, prop] of SIMPLE_FIELDS) contact[prop] = body[json] ?? null;
}
