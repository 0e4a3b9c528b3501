import { isE164 } from '@/common/validation/validators';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { isPgError, pgError, PG_UNIQUE_VIOLATION } from '@/common/persistence/pg-errors';
import { Contact } from './contact.entity';
import { applyFields, contactResponse, setNewFields } from './contact-mapping';
import { ContactInputResolver } from './contact-input.resolver';
import { ContactsRepository } from './contacts.repository';
import { mergeCustomFields } from './custom-fields';
import {
  ContactResponse,
  CreateContactDto,
  CreateContactsBatchDto,
  ListContactsQuery,
  UpdateContactDto,
} from './dto/contact.dto';
import { validateBody } from './dto/validate-body';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import { OutboxService } from '@/modules/events/outbox.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { effectiveContactSettings } from './contact-settings.service';

/** The body of a contact create, as the API takes it (snake_case keys). */
export type CreateContactInput = Partial<CreateContactDto> & Record<string, unknown>;
/** The keys of a contact to change, as the API takes them; others stay. */
export type UpdateContactInput = Partial<UpdateContactDto> & Record<string, unknown>;

const PHONE_TAKEN = 'A contact with this phone number already exists in the workspace';

/**
 * Contacts: the one owner of the contacts table. Other modules (conversations, scheduling) read, find and
 * create contacts through this service; its create and update apply the API's validation.
 */
@Injectable()
export class ContactsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly contacts: ContactsRepository,
    private readonly resolver: ContactInputResolver,
    private readonly outbox: OutboxService,
  ) {}

  /** `contact_created`, one per contact, in the transaction that stores them (every creation path comes here). */
  private async created(tx: Transaction, workspaceId: WorkspaceId, contacts: Contact[]): Promise<void> {
    await this.outbox.record(
      tx,
      workspaceId,
      contacts.map((c) => ({
        type: 'contact_created',
        agentId: null,
        data: { contact: this.toResponse(c) },
      })),
    );
  }

  /**
   * `contact_created` for contacts another module inserted itself inside `tx` (a listing's bulk upsert): read back in
   * that transaction and announced there, one event per contact, like the paths of this service.
   */
  async announceCreated(tx: Transaction, workspaceId: WorkspaceId, ids: string[]): Promise<void> {
    if (!ids.length) return;
    const rows = await this.contacts.findManyWithTags(workspaceId, [...new Set(ids)], tx);
    const byId = new Map(rows.map((c) => [c.id, c]));
    await this.created(
      tx,
      workspaceId,
      ids.map((id) => byId.get(id)).filter((c): c is Contact => !!c),
    );
  }

  toResponse(c: Contact): ContactResponse {
    return contactResponse(c);
  }

  async list(workspaceId: WorkspaceId, q: ListContactsQuery): Promise<Page<ContactResponse>> {
    const [rows, total] = await this.contacts.list(workspaceId, {
      search: q.search?.trim() || undefined,
      status: q.status,
      tagId: q.tag_uuid,
      stageId: q.stage_uuid,
      ...skipTake(q),
    });
    return pageOf(
      rows.map((c) => this.toResponse(c)),
      total,
      q,
    );
  }

  /** The contact of this workspace, or 404 (the same answer for another workspace's contact). */
  async get(workspaceId: WorkspaceId, id: string): Promise<Contact> {
    const contact = await this.contacts.findWithTags(workspaceId, id);
    if (!contact) throw AppException.notFound('Contact');
    return contact;
  }

  /** The contact, or null: for body references, which answer 422 rather than 404. */
  find(workspaceId: WorkspaceId, id: string): Promise<Contact | null> {
    return this.contacts.findWithTags(workspaceId, id);
  }

  findMany(workspaceId: WorkspaceId, ids: string[]): Promise<Contact[]> {
    return this.contacts.findManyWithTags(workspaceId, [...new Set(ids)]);
  }

  findByPhone(workspaceId: WorkspaceId, phoneNumber: string): Promise<Contact | null> {
    return this.contacts.findByPhone(workspaceId, phoneNumber);
  }

  /** The oldest contact with this email (case-insensitive), or null. */
  findByEmail(workspaceId: WorkspaceId, email: string): Promise<Contact | null> {
    return this.contacts.findByEmail(workspaceId, email);
  }

  /** The oldest contact with this email (case-insensitive), or a new one with the name and email. */
  async findOrCreateByEmail(
    workspaceId: WorkspaceId,
    input: { name: string; email: string },
    manager?: EntityManager,
  ): Promise<Contact> {
    const found = await this.contacts.findByEmail(workspaceId, input.email, manager);
    if (found) return found;
    const contact = this.contacts.build(workspaceId, {
      name: input.name,
      email: input.email,
      customFields: {},
    });
    contact.tags = [];
    const store = async (tx: Transaction) => {
      await this.contacts.save(workspaceId, contact, tx);
      const saved = (await this.contacts.findWithTags(workspaceId, contact.id, tx)) as Contact;
      await this.created(tx, workspaceId, [saved]);
      return saved;
    };
    return manager ? store(manager) : this.unitOfWork.run(store);
  }

  /**
   * One contact, validated like `POST /contacts`. With `nameOptional` (a caller known only by phone number,
   * such as an inbound call) `name` may be left out; every other rule still applies.
   */
  async create(
    workspaceId: WorkspaceId,
    input: CreateContactInput,
    options: { nameOptional?: boolean } = {},
  ): Promise<Contact> {
    const dto = options.nameOptional
      ? (validateBody(UpdateContactDto, input) as CreateContactDto)
      : validateBody(CreateContactDto, input);
    const [created] = await this.insert(workspaceId, [dto], () => '');
    return created;
  }

  /** Up to 1000 contacts, all or nothing; a failure names the item (`contacts.2.phone_number`). */
  async createMany(workspaceId: WorkspaceId, input: unknown): Promise<Contact[]> {
    const dto = validateBody(CreateContactsBatchDto, input);
    // An empty list is "missing" (VALIDATION_ERROR), unlike a value that is not a list (INVALID_FORMAT).
    if (!dto.contacts.length)
      throw AppException.invalid('contacts', 'contacts should not be empty', 'VALIDATION_ERROR');
    return this.insert(workspaceId, dto.contacts, (i) => `contacts.${i}.`);
  }

  private async insert(
    workspaceId: WorkspaceId,
    items: CreateContactDto[],
    at: (i: number) => string,
  ): Promise<Contact[]> {
    const resolved = await this.resolver.resolve(workspaceId, items, at);
    const seen = new Map<string, number>();
    items.forEach((item, i) => {
      if (!item.phone_number) return;
      const first = seen.get(item.phone_number);
      if (first !== undefined)
        throw this.phoneConflict(
          `${at(i)}phone_number`,
          `${at(i)}phone_number repeats the phone number of ${at(first)}phone_number`,
        );
      seen.set(item.phone_number, i);
    });
    const taken = await this.contacts.takenPhones(workspaceId, [...seen.keys()]);
    for (const [phone, i] of seen)
      if (taken.has(phone))
        throw this.phoneConflict(`${at(i)}phone_number`, `${at(i)}phone_number: ${PHONE_TAKEN}`);

    const now = new Date();
    const entities = items.map((item, i) => {
      const contact = this.contacts.build(workspaceId, { customFields: {} });
      applyFields(contact, item);
      contact.status = item.status ?? 'Active';
      contact.customFields = mergeCustomFields({}, resolved[i].customFields ?? {});
      contact.tags = resolved[i].tags ?? [];
      if (item.pipeline_stage_uuid) {
        contact.pipelineStageId = item.pipeline_stage_uuid;
        contact.pipelineStageChangedAt = now;
      }
      return contact;
    });
    try {
      await this.unitOfWork.run(async (m) => {
        for (let i = 0; i < entities.length; i += 200)
          await this.contacts.save(workspaceId, entities.slice(i, i + 200), m);
        await this.created(m, workspaceId, entities);
      });
    } catch (err) {
      if (isPgError(err, PG_UNIQUE_VIOLATION)) {
        // Taken by a concurrent writer after the check above: name the item from the index's detail.
        const phone = /\(workspace_id, phone_number\)=\([^,]+, ([^)]+)\)/.exec(
          pgError(err).detail ?? '',
        )?.[1];
        const i = phone ? items.findIndex((item) => item.phone_number === phone) : -1;
        const field = `${at(Math.max(i, 0))}phone_number`;
        throw this.phoneConflict(field, `${field}: ${PHONE_TAKEN}`);
      }
      throw err;
    }
    const saved = await this.contacts.findManyWithTags(
      workspaceId,
      entities.map((e) => e.id),
    );
    const byId = new Map(saved.map((c) => [c.id, c]));
    return entities.map((e) => byId.get(e.id) as Contact);
  }

  /** Changes only the keys sent, validated like `PUT /contacts/{uuid}`; `custom_fields` are merged key by key. */
  async update(
    workspaceId: WorkspaceId,
    id: string,
    input: UpdateContactInput,
    manager?: Transaction,
  ): Promise<Contact> {
    const contact = await this.prepareUpdate(workspaceId, id, input);
    try {
      await this.contacts.save(workspaceId, contact, manager);
    } catch (err) {
      if (isPgError(err, PG_UNIQUE_VIOLATION))
        throw this.phoneConflict('phone_number', `phone_number: ${PHONE_TAKEN}`);
      throw err;
    }
    if (manager) return (await this.contacts.findWithTags(workspaceId, id, manager)) as Contact;
    return this.get(workspaceId, id);
  }

  /** Checks a change exactly as `update` would (404, 409, 422), without writing it. */
  async checkUpdate(workspaceId: WorkspaceId, id: string, input: UpdateContactInput): Promise<void> {
    await this.prepareUpdate(workspaceId, id, input);
  }

  /**
   * The contact of an inbound SMS, WhatsApp message or call from this number, following the contact settings:
   * matched by phone number (unless `match_inbound_by` leaves it out), else created with the default country and
   * time zone (unless `auto_create_contacts` is off); null when the conversation carries no contact.
   */
  async inboundContactFor(workspaceId: WorkspaceId, phone: string): Promise<string | null> {
    const lookup = await this.contacts.inboundLookup(workspaceId, phone);
    const settings = effectiveContactSettings(lookup.settings);
    if (!settings.matchInboundBy.includes('phone_number')) return null;
    if (lookup.contactId) return lookup.contactId;
    if (!settings.autoCreateContacts) return null;
    // A sender that is not a phone number (a short code, an alphanumeric sender) gets no contact. The defaults were
    // checked when the settings were saved; no tags, custom fields or stage, so nothing to resolve or validate.
    if (!isE164(phone)) return null;
    const dto: CreateContactDto = Object.assign(new CreateContactDto(), {
      name: phone,
      phone_number: phone,
      ...(settings.defaultCountryCode ? { country_code: settings.defaultCountryCode } : {}),
      ...(settings.defaultTimezone ? { timezone: settings.defaultTimezone } : {}),
    });
    const now = new Date();
    const contact = this.contacts.build(workspaceId, {
      status: 'Active',
      customFields: {},
      pipelineStageId: null,
      pipelineStageChangedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    setNewFields(contact, dto);
    contact.tags = [];
    // The contact and its `contact_created` in one statement, the event only when the contact is new.
    const event = {
      type: 'contact_created' as const,
      agentId: null,
      data: { contact: this.toResponse(contact) },
    };
    if (await this.contacts.insertUnlessPhoneTaken(workspaceId, contact, event)) return contact.id;
    // Another inbound created it meanwhile (the number is unique per workspace).
    const raced = await this.contacts.idByPhone(workspaceId, phone);
    if (raced) return raced;
    throw this.phoneConflict('phone_number', `phone_number: ${PHONE_TAKEN}`);
  }

  /** The contact with the change applied in memory, after every check of `PUT /contacts/{uuid}`. */
  private async prepareUpdate(
    workspaceId: WorkspaceId,
    id: string,
    input: UpdateContactInput,
  ): Promise<Contact> {
    const dto = validateBody(UpdateContactDto, input);
    const contact = await this.get(workspaceId, id);
    const [resolved] = await this.resolver.resolve(workspaceId, [dto], () => '');
    if (dto.phone_number && dto.phone_number !== contact.phoneNumber) {
      const taken = await this.contacts.takenPhones(workspaceId, [dto.phone_number]);
      if (taken.size) throw this.phoneConflict('phone_number', `phone_number: ${PHONE_TAKEN}`);
    }
    applyFields(contact, dto);
    if (dto.status) contact.status = dto.status;
    if (resolved.customFields)
      contact.customFields = mergeCustomFields(contact.customFields, resolved.customFields);
    if (resolved.tags) contact.tags = resolved.tags;
    if (dto.pipeline_stage_uuid !== undefined && dto.pipeline_stage_uuid !== contact.pipelineStageId) {
      contact.pipelineStageId = dto.pipeline_stage_uuid;
      contact.pipelineStageChangedAt = new Date();
    }
    return contact;
  }

  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    if (!(await this.contacts.delete(workspaceId, { id }))) throw AppException.notFound('Contact');
  }

  private phoneConflict(field: string, message: string): AppException {
    return new AppException('CONFLICT', message, { field, details: message });
  }
}
