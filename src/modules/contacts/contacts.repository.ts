import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { insertSql, WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { OutboxEventInput, outboxInsertFor } from '@/modules/events/public';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Contact } from './contact.entity';
import type { StoredContactSettings } from './contact-settings.service';

export interface ContactFilter {
  search?: string;
  status?: string;
  tagId?: string;
  stageId?: string;
  skip: number;
  take: number;
}

/** What an inbound conversation needs to find its contact: the stored contact settings and the number's contact. */
export interface InboundLookup {
  /** The workspace's settings row, or null when it has none (the defaults apply). */
  settings: StoredContactSettings | null;
  contactId: string | null;
}

/** The searched text of a contact; the trigram index ix_contacts_search is built on exactly this expression. */
export const contactSearchText = (alias: string): string =>
  `(coalesce(${alias}.name, '') || ' ' || coalesce(${alias}.surname, '') || ' ' || coalesce(${alias}.email, '') || ' ' || coalesce(${alias}.phone_number, ''))`;
const SEARCH_TEXT = contactSearchText('c');

@Injectable()
export class ContactsRepository extends WorkspaceScopedRepository<Contact> {
  constructor(@InjectRepository(Contact) repo: Repository<Contact>) {
    super(repo);
  }

  findWithTags(workspaceId: WorkspaceId, id: string, manager?: EntityManager): Promise<Contact | null> {
    return this.findOne(workspaceId, { id }, { relations: { tags: true } }, manager);
  }

  findManyWithTags(workspaceId: WorkspaceId, ids: string[], manager?: EntityManager): Promise<Contact[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.find(workspaceId, { where: { id: In(ids) }, relations: { tags: true } }, manager);
  }

  async list(workspaceId: WorkspaceId, f: ContactFilter): Promise<[Contact[], number]> {
    const qb = this.query(workspaceId, 'c');
    if (f.search) {
      const like = `%${f.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      qb.andWhere(`${SEARCH_TEXT} ILIKE :like`, { like });
    }
    if (f.status) qb.andWhere('c.status = :status', { status: f.status });
    if (f.stageId) qb.andWhere('c.pipeline_stage_id = :stageId', { stageId: f.stageId });
    if (f.tagId)
      qb.andWhere(
        'EXISTS (SELECT 1 FROM contact_tag_links l WHERE l.contact_id = c.id AND l.tag_id = :tagId)',
        {
          tagId: f.tagId,
        },
      );
    const [rows, total] = await qb
      .orderBy('c.created_at', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .skip(f.skip)
      .take(f.take)
      .getManyAndCount();
    const withTags = await this.findManyWithTags(
      workspaceId,
      rows.map((r) => r.id),
    );
    const byId = new Map(withTags.map((c) => [c.id, c]));
    return [rows.map((r) => byId.get(r.id) ?? r), total];
  }

  /** Which of these phone numbers already belong to a contact of the workspace. */
  async takenPhones(
    workspaceId: WorkspaceId,
    phones: string[],
    manager?: EntityManager,
  ): Promise<Set<string>> {
    if (!phones.length) return new Set();
    const rows = await this.find(workspaceId, { where: { phoneNumber: In(phones) } }, manager);
    return new Set(rows.map((r) => r.phoneNumber as string));
  }

  findByPhone(workspaceId: WorkspaceId, phone: string): Promise<Contact | null> {
    return this.findOne(workspaceId, { phoneNumber: phone }, { relations: { tags: true } });
  }

  /**
   * The workspace's contact settings row (null when none is stored) and the id of the contact with this phone
   * number, in one statement.
   */
  async inboundLookup(workspaceId: WorkspaceId, phone: string): Promise<InboundLookup> {
    const [row] = await this.prepared<{
      stored: boolean;
      match_inbound_by: StoredContactSettings['matchInboundBy'] | null;
      auto_create_contacts: boolean | null;
      default_country_code: string | null;
      default_timezone: string | null;
      contact_id: string | null;
    }>(
      'contacts-inbound-lookup',
      `SELECT s.id IS NOT NULL AS stored, s.match_inbound_by, s.auto_create_contacts, s.default_country_code,
              s.default_timezone,
              (SELECT c.id FROM contacts c WHERE c.workspace_id = $1 AND c.phone_number = $2) AS contact_id
         FROM (SELECT 1) one LEFT JOIN contact_settings s ON s.workspace_id = $1`,
      [workspaceId, phone],
    );
    return {
      settings: row.stored
        ? {
            matchInboundBy: row.match_inbound_by!,
            autoCreateContacts: row.auto_create_contacts!,
            defaultCountryCode: row.default_country_code,
            defaultTimezone: row.default_timezone,
          }
        : null,
      contactId: row.contact_id,
    };
  }

  /**
   * Inserts a new contact (no tags) unless its phone number is taken in the workspace, and `event` with it in the
   * outbox, both in one statement: the event is written only when the contact is. Answers whether it was inserted.
   */
  async insertUnlessPhoneTaken(
    workspaceId: WorkspaceId,
    contact: Contact,
    event: OutboxEventInput,
  ): Promise<boolean> {
    const params: unknown[] = [];
    const insert = insertSql(this.newRows(workspaceId, [contact]), params);
    const inserted = await this.sql<{ id: string }[]>(
      `WITH inserted AS (
         ${insert} ON CONFLICT (workspace_id, phone_number) WHERE phone_number IS NOT NULL DO NOTHING
         RETURNING id, workspace_id
       ), announced AS (${outboxInsertFor('inserted', workspaceId, [event], params)})
       SELECT i.id, (SELECT count(*) FROM announced) AS announced FROM inserted i`,
      params,
    );
    return inserted.length > 0;
  }

  /** The id of the workspace's contact with this phone number, or null. */
  async idByPhone(workspaceId: WorkspaceId, phone: string): Promise<string | null> {
    const rows = await this.prepared<{ id: string }>(
      'contacts-id-by-phone',
      `SELECT id FROM contacts WHERE workspace_id = $1 AND phone_number = $2`,
      [workspaceId, phone],
    );
    return rows[0]?.id ?? null;
  }

  findByEmail(workspaceId: WorkspaceId, email: string, manager?: EntityManager): Promise<Contact | null> {
    return this.query(workspaceId, 'c', manager)
      .andWhere('lower(c.email) = lower(:email)', { email })
      .orderBy('c.created_at', 'ASC')
      .leftJoinAndSelect('c.tags', 't')
      .getOne();
  }

  /** Stored values under a custom field key that do not fit the given SQL predicate (counted, for a 409). */
  async countValuesNotMatching(
    workspaceId: WorkspaceId,
    key: string,
    fits: string,
    params: unknown[],
  ): Promise<number> {
    const rows: { n: string }[] = await this.sql(
      `SELECT count(*) AS n FROM contacts
        WHERE workspace_id = $1 AND custom_fields ? $2 AND NOT (${fits})`,
      [workspaceId, key, ...params],
    );
    return Number(rows[0].n);
  }

  async renameCustomKey(
    workspaceId: WorkspaceId,
    from: string,
    to: string,
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `UPDATE contacts SET custom_fields = (custom_fields - $2::text) || jsonb_build_object($3::text, custom_fields -> $2::text)
        WHERE workspace_id = $1 AND custom_fields ? $2`,
      [workspaceId, from, to],
    );
  }

  async removeCustomKey(workspaceId: WorkspaceId, key: string, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE contacts SET custom_fields = custom_fields - $2::text WHERE workspace_id = $1 AND custom_fields ? $2`,
      [workspaceId, key],
    );
  }

  /** Contacts per stage, for the stage list. */
  async countByStage(workspaceId: WorkspaceId, stageIds: string[]): Promise<Map<string, number>> {
    if (!stageIds.length) return new Map();
    const rows: { id: string; n: string }[] = await this.sql(
      `SELECT pipeline_stage_id AS id, count(*) AS n FROM contacts
        WHERE workspace_id = $1 AND pipeline_stage_id = ANY($2::uuid[]) GROUP BY pipeline_stage_id`,
      [workspaceId, stageIds],
    );
    return new Map(rows.map((r) => [r.id, Number(r.n)]));
  }

  /** Contacts per tag, for the tag list. */
  async countByTag(workspaceId: WorkspaceId, tagIds: string[]): Promise<Map<string, number>> {
    if (!tagIds.length) return new Map();
    const rows: { id: string; n: string }[] = await this.sql(
      `SELECT l.tag_id AS id, count(*) AS n FROM contact_tag_links l JOIN contacts c ON c.id = l.contact_id
        WHERE c.workspace_id = $1 AND l.tag_id = ANY($2::uuid[]) GROUP BY l.tag_id`,
      [workspaceId, tagIds],
    );
    return new Map(rows.map((r) => [r.id, Number(r.n)]));
  }
}
