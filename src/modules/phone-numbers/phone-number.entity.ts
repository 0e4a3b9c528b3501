import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const NUMBER_CHANNELS = ['call', 'sms', 'whatsapp', 'whatsapp_call'] as const;
export type NumberChannel = (typeof NUMBER_CHANNELS)[number];
export type Capabilities = Record<NumberChannel, boolean>;
export const DEFAULT_CAPABILITIES: Capabilities = {
  call: true,
  sms: true,
  whatsapp: false,
  whatsapp_call: false,
};

/** Per-number channel settings as stored: a partial object, absent keys take their defaults (channel-settings.ts). */
export interface ChannelSettings {
  voice?: { enabled?: boolean; channel_limit?: number; whitelisted_destinations?: string[] };
  sms?: { enabled?: boolean };
  inbound?: { enabled?: boolean; channel_limit?: number };
}

export interface MonthlyFee {
  amount: string;
  currency: string;
}

/** Where a number comes from: bought here, registered as owned elsewhere, or reached over a SIP trunk. */
export const NUMBER_SOURCES = ['purchased', 'registered', 'external'] as const;

/** A number the workspace owns; its channels are served by agents through bindings. */
@Entity('phone_numbers')
export class PhoneNumber extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 16 }) number!: string;
  @Column('varchar', { length: 50 }) provider!: string;
  @Column('varchar', { length: 20, default: 'active' }) status!: string;
  @Column('varchar', { length: 2, nullable: true }) countryCode!: string | null;
  @Column('varchar', { length: 20, nullable: true }) type!: string | null;
  @Column('jsonb') capabilities!: Capabilities;
  @Column('boolean', { default: false }) isExternal!: boolean;
  @Column('varchar', { length: 20, default: 'registered' }) source!: string;
  /** The provider's id of a bought number (Twilio's `PN...` sid), used to release it. */
  @Column('varchar', { length: 64, nullable: true }) providerSid!: string | null;
  @Column('jsonb', { nullable: true }) monthlyFee!: MonthlyFee | null;
  @Column('jsonb', { default: () => "'{}'::jsonb" }) channelSettings!: ChannelSettings;
}

/** One channel of one number, served by one agent (unique per number and channel). */
@Entity('phone_number_bindings')
export class PhoneNumberBinding extends WorkspaceOwnedEntity {
  @Column('uuid') phoneNumberId!: string;
  @Column('uuid') agentId!: string;
  @Column('varchar', { length: 20 }) channel!: NumberChannel;
}

/** A Messenger page connected to the workspace; `agentId` null when no agent serves it. */
@Entity('messenger_pages')
export class MessengerPage extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 100 }) pageId!: string;
  @Column('varchar', { length: 200, nullable: true }) pageName!: string | null;
  @Column('uuid', { nullable: true }) agentId!: string | null;
}
