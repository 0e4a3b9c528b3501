import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { PbxNormalizerValue } from './normalizer';

export const SETUP_MODES = ['inbound', 'outbound', 'both'] as const;
export type SetupMode = (typeof SETUP_MODES)[number];
export const CONNECTION_TYPES = ['udp', 'tcp', 'tls'] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

/**
 * An agent's PBX extension connector: the SIP registrar that extensions are dialled on (`outbound`), and/or the PBX
 * that sends calls in (`inbound`). Passwords are sealed with the SecretBox; answers only say whether one is set.
 */
@Entity('pbx_extension_connectors')
export class PbxConnector extends WorkspaceOwnedEntity {
  @Column('uuid') agentId!: string;
  @Column('varchar', { length: 32, nullable: true }) phoneNumber!: string | null;
  @Column('varchar', { length: 253 }) registrarServer!: string;
  @Column('varchar', { length: 64 }) usernameExtension!: string;
  @Column('text', { nullable: true }) pbxPasswordCiphertext!: string | null;
  @Column('varchar', { length: 64, nullable: true }) allowedIp!: string | null;
  @Column('varchar', { length: 10, default: 'both' }) setupMode!: SetupMode;
  @Column('varchar', { length: 3, default: 'udp' }) connectionType!: ConnectionType;
  @Column('int', { default: 5060 }) port!: number;
  @Column('varchar', { length: 64, nullable: true }) authUsername!: string | null;
  @Column('text', { nullable: true }) authPasswordCiphertext!: string | null;
  /** The text form or the source product's object (readNormalizer), as JSON. */
  @Column('jsonb', { nullable: true }) normalizer!: PbxNormalizerValue | null;
  @Column('varchar', { length: 10, default: 'active' }) status!: string;
}

/** A customer's SIP trunk: calls of its number go out through `gateway` with digest credentials. */
@Entity('sip_trunk_connections')
export class SipTrunkConnection extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 100 }) name!: string;
  @Column('uuid') phoneNumberId!: string;
  @Column('varchar', { length: 253 }) gateway!: string;
  @Column('varchar', { length: 253, nullable: true }) secondaryGateway!: string | null;
  @Column('varchar', { length: 64, nullable: true }) username!: string | null;
  @Column('text', { nullable: true }) passwordCiphertext!: string | null;
  @Column('varchar', { length: 10, default: 'active' }) status!: string;
}

/** An external number (`source: external`) and the trunk that carries it (null until assigned). */
@Entity('sip_trunk_numbers')
export class SipTrunkNumber extends WorkspaceOwnedEntity {
  @Column('uuid') phoneNumberId!: string;
  @Column('uuid', { nullable: true }) connectionId!: string | null;
}
