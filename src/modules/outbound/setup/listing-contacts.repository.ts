import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { newId } from '@/common/persistence/base.entity';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { PoolMember } from '../outbound.entities';
import type { ListingContactDto } from './dto/listing.dto';

/** The contacts of a listing, matched by phone then email, updated or created inside the listing's transaction. */
@Injectable()
export class ListingContactsRepository extends WorkspaceScopedRepository<PoolMember> {
  constructor(@InjectRepository(PoolMember) repo: Repository<PoolMember>) {
    super(repo);
  }

  /** Answers the contact ids in the order given, the ids of those created, and how many were updated. */
  async upsert(
    workspaceId: WorkspaceId,
    contacts: ListingContactDto[],
    tx: EntityManager,
  ): Promise<{ ids: string[]; createdIds: string[]; created: number; updated: number }> {
    const phones = contacts.map((c) => c.phone_number);
    const emails = contacts.map((c) => c.email?.toLowerCase()).filter((e): e is string => !!e);
    const found = await this.sql<{ id: string; phone_number: string | null; email: string | null }[]>(
      `SELECT id, phone_number, lower(email) AS email FROM contacts
        WHERE workspace_id = $1 AND (phone_number = ANY($2) OR lower(email) = ANY($3))
        ORDER BY created_at`,
      [workspaceId, phones, emails],
      tx,
    );
    const byPhone = new Map(found.filter((f) => f.phone_number).map((f) => [f.phone_number!, f.id]));
    const byEmail = new Map<string, string>();
    for (const f of found) if (f.email && !byEmail.has(f.email)) byEmail.set(f.email, f.id);
    const ids: string[] = [];
    const createdIds: string[] = [];
    let created = 0;
    let updated = 0;
    const seen = new Set<string>();
    for (const c of contacts) {
      let existing =
        byPhone.get(c.phone_number) ?? (c.email ? byEmail.get(c.email.toLowerCase()) : undefined);
      // A contact sent twice in one listing is taken once (its first entry), counted once.
      if (existing && seen.has(existing)) continue;
      const values = [
        c.name ?? null,
        c.surname ?? null,
        c.email ?? null,
        c.timezone ?? null,
        c.country_code ?? null,
        c.primary_language ?? null,
      ];
      if (!existing) {
        const id = await this.insert(workspaceId, c, values, tx);
        if (id) {
          byPhone.set(c.phone_number, id);
          if (c.email && !byEmail.has(c.email.toLowerCase())) byEmail.set(c.email.toLowerCase(), id);
          seen.add(id);
          createdIds.push(id);
          created += 1;
          ids.push(id);
          continue;
        }
        // Another request created the number meanwhile (and committed): its contact is taken as found.
        existing = await this.idByPhone(workspaceId, c.phone_number, tx);
        byPhone.set(c.phone_number, existing);
        if (seen.has(existing)) continue;
      }
      await this.sql(
        `UPDATE contacts SET name = coalesce($3, name), surname = coalesce($4, surname),
                email = coalesce($5, email), timezone = coalesce($6, timezone),
                country_code = coalesce($7, country_code), primary_language = coalesce($8, primary_language),
                phone_number = coalesce(phone_number, $9), updated_at = now()
          WHERE workspace_id = $1 AND id = $2`,
        [workspaceId, existing, ...values, c.phone_number],
        tx,
      );
      updated += 1;
      ids.push(existing);
      seen.add(existing);
    }
    return { ids, createdIds, created, updated };
  }

  /**
   * A new contact with the number, or null when the number is taken: a transaction beside this one that wrote it is
   * waited for (the unique index), so the number is found once it committed, never a unique violation.
   */
  private async insert(
    workspaceId: WorkspaceId,
    c: ListingContactDto,
    values: (string | null)[],
    tx: EntityManager,
  ): Promise<string | null> {
    const id = newId();
    const [row] = await this.sql<{ id: string }[]>(
      `INSERT INTO contacts (id, workspace_id, name, surname, email, timezone, country_code, primary_language,
                             phone_number)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (workspace_id, phone_number) WHERE phone_number IS NOT NULL DO NOTHING
       RETURNING id`,
      [id, workspaceId, c.name ?? c.phone_number, ...values.slice(1), c.phone_number],
      tx,
    );
    return row?.id ?? null;
  }

  /** The contact holding the number, committed since this transaction read the contacts. */
  private async idByPhone(workspaceId: WorkspaceId, phone: string, tx: EntityManager): Promise<string> {
    const [row] = await this.sql<{ id: string }[]>(
      `SELECT id FROM contacts WHERE workspace_id = $1 AND phone_number = $2`,
      [workspaceId, phone],
      tx,
    );
    // Deleted again between the two statements: the request may simply be sent again.
    if (!row)
      throw AppException.conflict(`The contact with ${phone} changed meanwhile; send the request again`);
    return row.id;
  }
}
