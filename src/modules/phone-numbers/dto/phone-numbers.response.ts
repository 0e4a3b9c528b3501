import { ApiProperty } from '@nestjs/swagger';
import { CapabilitiesResponse } from '@/modules/agents/dto/agent.response';

const TS = '2026-11-22T04:17:55.123Z';

export class PhoneNumberResponse {
  @ApiProperty({ format: 'uuid' }) phone_number_uuid!: string;
  @ApiProperty({ format: 'uuid', description: 'the same as phone_number_uuid' }) uuid!: string;
  @ApiProperty({ example: '+14155550123' }) number!: string;
  @ApiProperty({ example: 'twilio' }) provider!: string;
  @ApiProperty({ example: 'active' }) status!: string;
  @ApiProperty({ type: String, example: 'US', nullable: true }) country_code!: string | null;
  @ApiProperty({ type: String, example: 'local', nullable: true }) type!: string | null;
  @ApiProperty({ type: CapabilitiesResponse }) capabilities!: CapabilitiesResponse;
  @ApiProperty({ example: false }) is_external!: boolean;
  @ApiProperty({ example: 'purchased' }) source!: string;
  @ApiProperty({ example: TS }) created_at!: string;
  @ApiProperty({ example: TS }) updated_at!: string;
}

export class VoiceChannelSnapshot {
  @ApiProperty({ example: true, description: 'the carrier supports it' }) capable!: boolean;
  @ApiProperty({ example: true, description: 'capable and bound to an agent' }) enabled!: boolean;
  @ApiProperty({ example: 50, description: 'simultaneous sessions (MAX_CONCURRENT_CALLS)' })
  channel_limit!: number;
  @ApiProperty({ example: ['US'], description: 'country codes it may reach' })
  whitelisted_destinations!: string[];
  @ApiProperty({ example: true }) bound!: boolean;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) agent_uuid!: string | null;
  @ApiProperty({ type: String, example: 'Sales assistant', nullable: true }) agent_name!: string | null;
}

export class WhatsappChannelSnapshot {
  @ApiProperty({ example: false }) bound!: boolean;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) agent_uuid!: string | null;
  @ApiProperty({ type: String, example: null, nullable: true }) agent_name!: string | null;
}

export class InboundChannelSnapshot {
  @ApiProperty({ example: true, description: 'an agent answers inbound calls' }) enabled!: boolean;
  @ApiProperty({ example: 50 }) channel_limit!: number;
}

export class ChannelsSnapshot {
  @ApiProperty({ type: VoiceChannelSnapshot }) call!: VoiceChannelSnapshot;
  @ApiProperty({ type: VoiceChannelSnapshot }) sms!: VoiceChannelSnapshot;
  @ApiProperty({ type: WhatsappChannelSnapshot }) whatsapp!: WhatsappChannelSnapshot;
  @ApiProperty({ type: InboundChannelSnapshot }) inbound!: InboundChannelSnapshot;
}

export class PhoneNumberChannelSnapshotResponse {
  @ApiProperty({ format: 'uuid' }) phone_number_uuid!: string;
  @ApiProperty({ example: '+14155550123' }) number!: string;
  @ApiProperty({ example: false }) is_external!: boolean;
  @ApiProperty({ example: 'purchased' }) source!: string;
  @ApiProperty({ type: ChannelsSnapshot }) channels!: ChannelsSnapshot;
}
