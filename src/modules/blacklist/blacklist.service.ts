import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { BlacklistEntry } from './blacklist-entry.entity';
import { BlacklistRepository } from './blacklist.repository';
import type { BlacklistAddressDto, BlacklistContactDto, ListBlacklistQuery } from './dto/blacklist.dto';
import { BlacklistEntryResponse } from './dto/blacklist.response';

/** The do-not-contact check every outbound call or message passes first, and the list itself. */
@Injectable()
export class BlacklistService {
  constructor(
    private readonly entries: BlacklistRepository,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  isBlacklisted(
    workspaceId: WorkspaceId,
    address: { phone?: string | null; email?: string | null },
  ): Promise<boolean> {
    return this.entries.matches(workspaceId, address);
  }

  /** 409 BLACKLISTED when an entry in force covers the address. */
  async assertAllowed(
    workspaceId: WorkspaceId,
    address: { phone?: string | null; email?: string | null },
  ): Promise<void> {
    if (await this.entries.matches(workspaceId, address))
      throw new AppException('BLACKLISTED', 'The destination is on the do-not-contact list');
  }

  async list(workspaceId: WorkspaceId, q: ListBlacklistQuery): Promise<Page<BlacklistEntryResponse>> {
    const { skip, take } = skipTake(q);
    const [rows, total] = await this.entries.search(workspaceId, q, skip, take);
    return pageOf(rows.map(BlacklistEntryResponse.of), total, q);
  }

  /** `POST /blacklist`: an address with no contact. */
  async add(workspaceId: WorkspaceId, dto: BlacklistAddressDto): Promise<BlacklistEntryResponse> {
    if (!dto.phone_number && !dto.email)
      throw AppException.invalid('phone_number', 'phone_number or email is required', 'VALIDATION_ERROR');
    const type = dto.phone_number && dto.email ? 'Both' : dto.phone_number ? 'Phone' : 'Email';
    const entry = this.entries.build(workspaceId, {
      contactId: null,
      phoneNumber: dto.phone_number ?? null,
      email: dto.email ?? null,
      type,
      reason: dto.reason,
      source: 'manual',
      ...this.term(dto),
    });
    await this.entries.save(workspaceId, entry);
    return BlacklistEntryResponse.of(entry);
  }

  /** A contact's entry (replacing its earlier manual one), with the contact's number and/or email. */
  async addContact(
    workspaceId: WorkspaceId,
    contact: { id: string; phoneNumber: string | null; email: string | null },
    dto: BlacklistContactDto,
  ): Promise<BlacklistEntry> {
    const type = dto.type ?? 'Phone';
    const phone = type === 'Email' ? null : contact.phoneNumber;
    const email = type === 'Phone' ? null : contact.email;
    if (!phone && !email)
      throw AppException.invalid(
        'type',
        `The contact has no ${type === 'Email' ? 'email' : type === 'Phone' ? 'phone number' : 'phone number or email'}`,
        'VALIDATION_ERROR',
      );
    const entry = this.entries.build(workspaceId, {
      contactId: contact.id,
      phoneNumber: phone,
      email,
      type,
      reason: dto.reason,
      source: 'manual',
      ...this.term(dto),
    });
    // The contact's earlier manual entry is replaced; an opt-out by message stays (only START lifts it).
    await this.unitOfWork.run(async (tx) => {
      await this.entries.delete(workspaceId, { contactId: contact.id, source: 'manual' }, tx);
      await this.entries.save(workspaceId, entry, tx);
    });
    return entry;
  }

  /** The contact's latest entry, or null. */
  ofContact(workspaceId: WorkspaceId, contactId: string): Promise<BlacklistEntry | null> {
    return this.entries.findOne(workspaceId, { contactId }, { order: { createdAt: 'DESC' } });
  }

  /** Removes the contact's manual entries; an opt-out by message is the customer's to lift (409 when only it is left). */
  async removeContact(workspaceId: WorkspaceId, contactId: string): Promise<void> {
    if (await this.entries.delete(workspaceId, { contactId, source: 'manual' })) return;
    if (await this.entries.exists(workspaceId, { contactId, source: 'opt_out' }))
      throw AppException.conflict('The contact opted out by message: only a START from them lifts it');
    throw AppException.notFound('Blacklist entry');
  }

  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    if (!(await this.entries.delete(workspaceId, { id }))) throw AppException.notFound('Blacklist entry');
  }

  /** `STOP` and its family: the sender becomes blacklisted (permanent, source opt_out), once. */
  async optOut(workspaceId: WorkspaceId, phone: string, contactId: string | null): Promise<void> {
    if (await this.entries.exists(workspaceId, { phoneNumber: phone, source: 'opt_out' })) return;
    const entry = this.entries.build(workspaceId, {
      contactId,
      phoneNumber: phone,
      email: null,
      type: 'Phone',
      reason: 'Opted out by message',
      source: 'opt_out',
      isPermanent: true,
      expiresAt: null,
    });
    await this.entries.save(workspaceId, entry);
  }

  /** `START`/`UNSTOP`: lifts opt-out entries of the number (never a manual one). */
  async liftOptOut(workspaceId: WorkspaceId, phone: string): Promise<number> {
    return this.entries.delete(workspaceId, { phoneNumber: phone, source: 'opt_out' });
  }

  private term(dto: { is_permanent?: boolean; expires_at?: string }): {
    isPermanent: boolean;
    expiresAt: Date | null;
  } {
    const isPermanent = dto.is_permanent ?? true;
    if (isPermanent) return { isPermanent, expiresAt: null };
    if (!dto.expires_at)
      throw AppException.invalid(
        'expires_at',
        'expires_at is required when is_permanent is false',
        'VALIDATION_ERROR',
      );
    const expiresAt = new Date(dto.expires_at);
    if (expiresAt.getTime() <= Date.now())
      throw AppException.invalid('expires_at', 'expires_at must be in the future');
    return { isPermanent, expiresAt };
  }
}
