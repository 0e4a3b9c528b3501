import { ApiProperty } from '@nestjs/swagger';

const TS = '2026-11-22T04:17:55.123Z';

/** The channels a number can serve. */
export class CapabilitiesResponse {
  @ApiProperty({ example: true }) call!: boolean;
  @ApiProperty({ example: true }) sms!: boolean;
  @ApiProperty({ example: false }) whatsapp!: boolean;
  @ApiProperty({ example: false }) whatsapp_call!: boolean;
}

export class MonthlyFeeResponse {
  @ApiProperty({ example: '1.15', description: 'decimal string' }) amount!: string;
  @ApiProperty({ example: 'USD' }) currency!: string;
}

export class VoiceSettingsResponse {
  @ApiProperty({ example: true }) enabled!: boolean;
  @ApiProperty({ example: 50 }) channel_limit!: number;
  @ApiProperty({ example: ['US'], type: [String] }) whitelisted_destinations!: string[];
}

export class SmsSettingsResponse {
  @ApiProperty({ example: true }) enabled!: boolean;
}

export class InboundSettingsResponse {
  @ApiProperty({ example: true }) enabled!: boolean;
  @ApiProperty({ example: 50 }) channel_limit!: number;
}

/** The number's channel settings with their defaults filled in. */
export class ChannelSettingsResponse {
  @ApiProperty({ type: VoiceSettingsResponse }) voice!: VoiceSettingsResponse;
  @ApiProperty({ type: SmsSettingsResponse }) sms!: SmsSettingsResponse;
  @ApiProperty({ type: InboundSettingsResponse }) inbound!: InboundSettingsResponse;
}

export class NumberRequirementsResponse {
  @ApiProperty({ enum: ['none', 'any', 'local', 'foreign'], example: 'none' }) address!: string;
  @ApiProperty({ type: [String], example: [], description: 'keys the purchase must give in `requirements`' })
  documents!: string[];
}

export class SearchRequirementsResponse extends NumberRequirementsResponse {
  @ApiProperty({ example: 'US' }) country_code!: string;
  @ApiProperty({ enum: ['local', 'mobile', 'toll_free'], example: 'local' }) type!: string;
  @ApiProperty({ example: 'sandbox', description: 'the inventory numbers are bought from' })
  provider!: string;
}

export class AvailableNumberResponse {
  @ApiProperty({ example: '+12015550123' }) number!: string;
  @ApiProperty({ example: 'US' }) country_code!: string;
  @ApiProperty({ enum: ['local', 'mobile', 'toll_free'], example: 'local' }) type!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Hoboken' }) locality!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'NJ' }) region!: string | null;
  @ApiProperty({ type: CapabilitiesResponse }) capabilities!: CapabilitiesResponse;
  @ApiProperty({ type: MonthlyFeeResponse, nullable: true, description: 'null when the provider names none' })
  monthly_fee!: MonthlyFeeResponse | null;
  @ApiProperty({ type: NumberRequirementsResponse }) requirements!: NumberRequirementsResponse;
}

export class WhatsappSenderResponse {
  @ApiProperty({ example: '106540352242922', description: "Meta's phone_number_id of this number" })
  phone_number_id!: string;
  @ApiProperty({
    type: String,
    example: '102290129340398',
    nullable: true,
    description: 'its Business Account',
  })
  waba_id!: string | null;
}

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
  @ApiProperty({
    enum: ['purchased', 'registered', 'external'],
    example: 'purchased',
    description:
      'bought here (POST /phone-numbers/purchase), registered as owned elsewhere, or a SIP trunk number',
  })
  source!: string;
  @ApiProperty({ type: MonthlyFeeResponse, nullable: true, description: 'bought numbers only' })
  monthly_fee!: MonthlyFeeResponse | null;
  @ApiProperty({
    type: WhatsappSenderResponse,
    nullable: true,
    description: 'the WhatsApp sender set with `whatsapp` on POST or PATCH; null when none is set',
  })
  whatsapp!: WhatsappSenderResponse | null;
  @ApiProperty({ type: ChannelSettingsResponse }) channel_settings!: ChannelSettingsResponse;
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
  @ApiProperty({
    type: String,
    example: '106540352242922',
    nullable: true,
    description: "the sender's Meta phone_number_id; null when none is set",
  })
  phone_number_id!: string | null;
  @ApiProperty({ type: String, example: '102290129340398', nullable: true }) waba_id!: string | null;
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
