import { ApiProperty } from '@nestjs/swagger';
import { ContactResponse } from '@/modules/contacts/dto/contact.dto';
import { BLACKLIST_TYPES, BlacklistEntry } from '../blacklist-entry.entity';

const TS = '2026-11-22T04:17:55.123Z';

export class BlacklistEntryResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ enum: BLACKLIST_TYPES, example: 'Phone' }) type!: string;
  @ApiProperty({ example: 'Asked not to be contacted' }) reason!: string;
  @ApiProperty({ enum: ['manual', 'opt_out'], example: 'manual' }) source!: string;
  @ApiProperty({ example: true }) is_permanent!: boolean;
  @ApiProperty({ type: String, example: null, nullable: true }) expires_at!: string | null;
  @ApiProperty({ example: TS }) blacklisted_at!: string;
  @ApiProperty({ type: String, example: '+14155552671', nullable: true }) phone_number!: string | null;
  @ApiProperty({ type: String, example: null, nullable: true }) email!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) contact_uuid!: string | null;
  @ApiProperty({ example: true, description: 'false once expires_at has passed (the entry stays listed)' })
  in_force!: boolean;

  static of(e: BlacklistEntry): BlacklistEntryResponse {
    return {
      uuid: e.id,
      type: e.type,
      reason: e.reason,
      source: e.source,
      is_permanent: e.isPermanent,
      expires_at: e.expiresAt ? e.expiresAt.toISOString() : null,
      blacklisted_at: e.createdAt.toISOString(),
      phone_number: e.phoneNumber,
      email: e.email,
      contact_uuid: e.contactId,
      in_force: e.isPermanent || (!!e.expiresAt && e.expiresAt.getTime() > Date.now()),
    };
  }
}

export class BlacklistedContactResponse extends ContactResponse {
  @ApiProperty({ type: BlacklistEntryResponse, nullable: true }) blacklist!: BlacklistEntryResponse | null;
}
