import { Injectable } from '@nestjs/common';
import { isPgError, PG_UNIQUE_VIOLATION } from '@/common/persistence/pg-errors';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ContactSettings, INBOUND_MATCH_KEYS, InboundMatchKey } from './contact-settings.entity';
import { ContactSettingsRepository } from './contact-settings.repository';
import { ContactSettingsResponse, UpdateContactSettingsDto } from './dto/contact-settings.dto';

export interface EffectiveContactSettings {
  matchInboundBy: InboundMatchKey[];
  autoCreateContacts: boolean;
  defaultCountryCode: string | null;
  defaultTimezone: string | null;
  updatedAt: Date | null;
}

/** A workspace's stored settings row, as far as the effective settings read it. */
export type StoredContactSettings = Pick<
  ContactSettings,
  'matchInboundBy' | 'autoCreateContacts' | 'defaultCountryCode' | 'defaultTimezone'
> & { updatedAt?: Date | null };

const DEFAULTS: EffectiveContactSettings = {
  matchInboundBy: [...INBOUND_MATCH_KEYS],
  autoCreateContacts: true,
  defaultCountryCode: null,
  defaultTimezone: null,
  updatedAt: null,
};

/** The settings in force: the stored row's, or the defaults when the workspace has none. */
export function effectiveContactSettings(row: StoredContactSettings | null): EffectiveContactSettings {
  if (!row) return { ...DEFAULTS, matchInboundBy: [...DEFAULTS.matchInboundBy] };
  return {
    matchInboundBy: row.matchInboundBy,
    autoCreateContacts: row.autoCreateContacts,
    defaultCountryCode: row.defaultCountryCode,
    defaultTimezone: row.defaultTimezone,
    updatedAt: row.updatedAt ?? null,
  };
}

/** The workspace's contact settings: the defaults until a PUT stores a row. */
@Injectable()
export class ContactSettingsService {
  constructor(private readonly settings: ContactSettingsRepository) {}

  async effective(workspaceId: WorkspaceId): Promise<EffectiveContactSettings> {
    return effectiveContactSettings(await this.settings.findFor(workspaceId));
  }

  async get(workspaceId: WorkspaceId): Promise<ContactSettingsResponse> {
    return this.toResponse(await this.effective(workspaceId));
  }

  /** Only the keys sent change; null clears the default country or time zone. */
  async update(workspaceId: WorkspaceId, dto: UpdateContactSettingsDto): Promise<ContactSettingsResponse> {
    for (let attempt = 0; ; attempt++) {
      const row =
        (await this.settings.findFor(workspaceId)) ??
        this.settings.build(workspaceId, {
          matchInboundBy: [...DEFAULTS.matchInboundBy],
          autoCreateContacts: DEFAULTS.autoCreateContacts,
          defaultCountryCode: null,
          defaultTimezone: null,
        });
      if (dto.match_inbound_by !== undefined)
        // Kept in the canonical order, whatever the order sent.
        row.matchInboundBy = INBOUND_MATCH_KEYS.filter((k) => dto.match_inbound_by!.includes(k));
      if (dto.auto_create_contacts !== undefined) row.autoCreateContacts = dto.auto_create_contacts;
      if (dto.default_country_code !== undefined)
        row.defaultCountryCode = dto.default_country_code?.toUpperCase() ?? null;
      if (dto.default_timezone !== undefined) row.defaultTimezone = dto.default_timezone ?? null;
      try {
        await this.settings.save(workspaceId, row);
        return this.toResponse(effectiveContactSettings(row));
      } catch (err) {
        // Two first PUTs at once: the second applies its keys over the row the first stored.
        if (attempt === 0 && isPgError(err, PG_UNIQUE_VIOLATION)) continue;
        throw err;
      }
    }
  }

  private toResponse(s: EffectiveContactSettings): ContactSettingsResponse {
    return {
      match_inbound_by: s.matchInboundBy,
      auto_create_contacts: s.autoCreateContacts,
      default_country_code: s.defaultCountryCode,
      default_timezone: s.defaultTimezone,
      updated_at: s.updatedAt?.toISOString() ?? null,
    };
  }
}
