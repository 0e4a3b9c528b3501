import { ApiProperty } from '@nestjs/swagger';
import { PhoneNumberResponse } from '@/modules/phone-numbers/dto/phone-numbers.response';
import type { PbxNormalizerValue } from '../normalizer';
import { CONNECTION_TYPES, PbxConnector, SETUP_MODES, SipTrunkConnection } from '../sip.entities';
import { NORMALIZER_SCHEMA } from './pbx-connector.dto';
import { TRUNK_DIRECTIONS, type TrunkDirection } from './sip-trunk.dto';

const TS = '2026-11-22T04:17:55.123Z';

/** A PBX extension connector; its passwords are never answered, only whether they are set. */
export class PbxConnectorResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ format: 'uuid' }) agent_uuid!: string;
  @ApiProperty({ type: String, example: '+14155550100', nullable: true }) phone_number!: string | null;
  @ApiProperty({ example: 'pbx.example.com' }) registrar_server!: string;
  @ApiProperty({ example: '1001' }) username_extension!: string;
  @ApiProperty({ example: true, description: 'a pbx_password is stored (sealed)' }) has_password!: boolean;
  @ApiProperty({ type: String, example: '203.0.113.10', nullable: true }) allowed_ip!: string | null;
  @ApiProperty({ enum: SETUP_MODES, example: 'both' }) setup_mode!: string;
  @ApiProperty({ enum: CONNECTION_TYPES, example: 'udp' }) connection_type!: string;
  @ApiProperty({ example: 5060 }) port!: number;
  @ApiProperty({ type: String, example: 'agent-1001', nullable: true }) auth_username!: string | null;
  @ApiProperty({ example: false, description: 'an auth_password is stored (sealed)' })
  has_auth_password!: boolean;
  @ApiProperty({
    ...NORMALIZER_SCHEMA,
    description: 'as stored: the text given, or the object with its three keys (those left out null)',
  })
  normalizer!: PbxNormalizerValue | null;
  @ApiProperty({ example: 'active' }) status!: string;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;

  static of(c: PbxConnector): PbxConnectorResponse {
    return {
      uuid: c.id,
      agent_uuid: c.agentId,
      phone_number: c.phoneNumber,
      registrar_server: c.registrarServer,
      username_extension: c.usernameExtension,
      has_password: !!c.pbxPasswordCiphertext,
      allowed_ip: c.allowedIp,
      setup_mode: c.setupMode,
      connection_type: c.connectionType,
      port: c.port,
      auth_username: c.authUsername,
      has_auth_password: !!c.authPasswordCiphertext,
      normalizer: c.normalizer,
      status: c.status,
      created_at: c.createdAt.toISOString(),
      updated_at: c.updatedAt.toISOString(),
    };
  }
}

export class PbxTestResponse {
  @ApiProperty({ example: true }) reachable!: boolean;
  @ApiProperty({ example: 'sandbox', enum: ['sandbox', 'twilio'] }) provider!: string;
  @ApiProperty({
    example: 'sandbox',
    enum: ['sandbox', 'dns'],
    description:
      'sandbox: always reachable; dns: the registrar resolves (Twilio offers no SIP OPTIONS probe)',
  })
  method!: string;
}

/** A SIP trunk connection; its password is never answered. */
export class SipTrunkResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'Head office trunk' }) name!: string;
  @ApiProperty({ example: '+14155550150' }) phone_number!: string;
  @ApiProperty({ format: 'uuid' }) phone_number_uuid!: string;
  @ApiProperty({ example: 'sip.carrier.example' }) gateway!: string;
  @ApiProperty({ type: String, example: null, nullable: true }) secondary_gateway!: string | null;
  @ApiProperty({ type: String, example: 'trunk-user', nullable: true }) username!: string | null;
  @ApiProperty({ example: true }) has_password!: boolean;
  @ApiProperty({ example: 'twilio' }) provider!: string;
  @ApiProperty({ example: 'active' }) status!: string;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;

  static of(t: SipTrunkConnection, number: { number: string; provider: string }): SipTrunkResponse {
    return {
      uuid: t.id,
      name: t.name,
      phone_number: number.number,
      phone_number_uuid: t.phoneNumberId,
      gateway: t.gateway,
      secondary_gateway: t.secondaryGateway,
      username: t.username,
      has_password: !!t.passwordCiphertext,
      provider: number.provider,
      status: t.status,
      created_at: t.createdAt.toISOString(),
      updated_at: t.updatedAt.toISOString(),
    };
  }
}

/** An external number (`source: external`) with the trunk that carries it and the agent serving its calls. */
export class TrunkNumberResponse extends PhoneNumberResponse {
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) connection_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) agent_uuid!: string | null;
  @ApiProperty({
    enum: TRUNK_DIRECTIONS,
    nullable: true,
    example: 'both',
    description:
      'which calls it takes, read from channel_settings (voice.enabled: outbound, inbound.enabled: inbound); ' +
      'null when neither',
  })
  direction!: TrunkDirection | null;
}

/** `POST /agents/{uuid}/channels/call/sip-trunk`: the agent now serving the calls of the trunk's number. */
export class SipTrunkBindingResponse {
  @ApiProperty({ format: 'uuid' }) agent_uuid!: string;
  @ApiProperty({ format: 'uuid' }) connection_uuid!: string;
  @ApiProperty({ example: '+14155550150', description: "the trunk's number, E.164" }) phone_number!: string;
}
