import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CapabilitiesResponse } from './phone-numbers.response';

const TS = '2026-11-22T04:17:55.123Z';

export class AgentPhoneNumberResponse {
  @ApiProperty({ format: 'uuid' }) phone_number_uuid!: string;
  @ApiProperty({ example: '+14155550123' }) number!: string;
  @ApiProperty({ example: 'twilio' }) provider!: string;
  @ApiProperty({ example: 'active' }) status!: string;
  @ApiProperty({ type: String, example: 'US', nullable: true }) country_code!: string | null;
  @ApiProperty({ type: String, example: 'local', nullable: true }) type!: string | null;
  @ApiProperty({ type: CapabilitiesResponse }) capabilities!: CapabilitiesResponse;
  @ApiProperty({ example: ['call', 'sms'], description: 'the channels of this number bound to the agent' })
  channels!: string[];
}

export class AgentChannelResponse {
  @ApiProperty({ enum: ['call', 'sms', 'whatsapp', 'whatsapp_call', 'messenger'], example: 'call' })
  channel!: string;
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true }) phone_number_uuid!: string | null;
  @ApiPropertyOptional({ type: String, example: '+14155550123', nullable: true }) number!: string | null;
  @ApiPropertyOptional({ example: '1029384756', nullable: true, description: 'Messenger only' }) page_id!:
    string | null;
  @ApiPropertyOptional({ example: 'Acme Support', nullable: true, description: 'Messenger only' })
  page_name!: string | null;
  @ApiProperty({ example: TS }) bound_at!: string;
}

/** What an agent is bound to: its numbers (with the channels it serves on each) and its channel list. */
export interface AgentBindings {
  phone_numbers: AgentPhoneNumberResponse[];
  channels: AgentChannelResponse[];
}
