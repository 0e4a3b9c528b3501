import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsInt,
  Max,
  Min,
  IsBoolean,
  IsDefined,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsE164, IsUuidValue } from '@/common/validation/validators';
import { NUMBER_CHANNELS, NumberChannel } from '../phone-number.entity';
import { NotEmptyWhenArray } from '@/common/validation/non-empty-array';

export const NUMBER_TYPES = ['local', 'mobile', 'toll_free', 'national'] as const;

export class CapabilitiesDto {
  @ApiPropertyOptional({ example: true }) @IsOptional() @IsBoolean() call?: boolean;
  @ApiPropertyOptional({ example: true }) @IsOptional() @IsBoolean() sms?: boolean;
  @ApiPropertyOptional({ example: false }) @IsOptional() @IsBoolean() whatsapp?: boolean;
  @ApiPropertyOptional({ example: false }) @IsOptional() @IsBoolean() whatsapp_call?: boolean;
}

export class WhatsappSenderDto {
  @ApiProperty({ example: '106540352242922', description: "Meta's phone_number_id of this number" })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(64)
  @Matches(/^[0-9A-Za-z_.-]+$/, { message: 'whatsapp.phone_number_id must be a Meta phone number id' })
  phone_number_id!: string;

  @ApiPropertyOptional({ example: '102290129340398', description: 'the WhatsApp Business Account' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @Matches(/^[0-9A-Za-z_.-]+$/, { message: 'whatsapp.waba_id must be a Meta account id' })
  waba_id?: string;
}

/**
 * The sender on `PATCH`: the keys sent change (`waba_id: null` clears the account); `phone_number_id` is needed only
 * to enable WhatsApp on a number that has no sender yet.
 */
export class UpdateWhatsappSenderDto extends PartialType(WhatsappSenderDto) {}

export class CreatePhoneNumberDto {
  @ApiProperty({ example: '+14155550123', description: 'E.164' })
  @IsDefined()
  @IsNotEmpty()
  @IsE164()
  number!: string;

  @ApiPropertyOptional({ example: 'twilio', default: 'sandbox' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  @Matches(/^[a-z0-9_-]+$/, { message: 'provider must be lowercase letters, digits, - and _' })
  provider?: string;

  @ApiPropertyOptional({
    example: 'US',
    description: 'ISO 3166 alpha-2; derived from the number when absent',
    maxLength: 2,
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{2}$/, { message: 'country_code must be two capital letters (ISO 3166-1 alpha-2)' })
  country_code?: string;

  @ApiPropertyOptional({ enum: NUMBER_TYPES, example: 'local' })
  @IsOptional()
  @IsIn(NUMBER_TYPES, { message: `type must be one of ${NUMBER_TYPES.join(', ')}` })
  type?: string;

  @ApiPropertyOptional({
    type: CapabilitiesDto,
    description:
      'default: call and sms true, whatsapp and whatsapp_call false. `whatsapp: true` on a non-sandbox number ' +
      'needs the `whatsapp` sender (422 on whatsapp.phone_number_id without it)',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CapabilitiesDto)
  capabilities?: CapabilitiesDto;

  @ApiPropertyOptional({ type: WhatsappSenderDto, description: 'enables WhatsApp messaging on the number' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => WhatsappSenderDto)
  whatsapp?: WhatsappSenderDto;
}

export class VoiceChannelSettingsDto {
  @ApiPropertyOptional({ example: true, description: 'outbound calls from the number' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: 1000,
    example: 5,
    description:
      'live calls on the number above which a new outbound call is refused; null: the workspace limit',
  })
  @IsOptional()
  @IsInt({ message: 'channel_settings.voice.channel_limit must be an integer' })
  @Min(1)
  @Max(1000)
  channel_limit?: number | null;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    example: ['US', 'CA'],
    description: "countries (ISO-2) outbound calls may reach; null: the number's own country",
  })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty({ message: 'channel_settings.voice.whitelisted_destinations should not be empty' })
  @ArrayMaxSize(250)
  @ArrayUnique()
  @Matches(/^[A-Z]{2}$/, {
    each: true,
    message: 'each of channel_settings.voice.whitelisted_destinations must be an ISO 3166-1 alpha-2 code',
  })
  whitelisted_destinations?: string[] | null;
}

export class SmsChannelSettingsDto {
  @ApiPropertyOptional({ example: true, description: 'SMS sent from the number' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class InboundChannelSettingsDto {
  @ApiPropertyOptional({ example: true, description: 'inbound calls on the number' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: 1000,
    example: 5,
    description:
      'live calls on the number above which an inbound call is refused (busy); null: the workspace limit',
  })
  @IsOptional()
  @IsInt({ message: 'channel_settings.inbound.channel_limit must be an integer' })
  @Min(1)
  @Max(1000)
  channel_limit?: number | null;
}

export class ChannelSettingsDto {
  @ApiPropertyOptional({ type: VoiceChannelSettingsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => VoiceChannelSettingsDto)
  voice?: VoiceChannelSettingsDto;

  @ApiPropertyOptional({ type: SmsChannelSettingsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SmsChannelSettingsDto)
  sms?: SmsChannelSettingsDto;

  @ApiPropertyOptional({ type: InboundChannelSettingsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => InboundChannelSettingsDto)
  inbound?: InboundChannelSettingsDto;
}

export class UpdatePhoneNumberDto {
  @ApiPropertyOptional({
    type: ChannelSettingsDto,
    description: 'merged into the stored settings: a key given replaces it, null puts back its default',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ChannelSettingsDto)
  channel_settings?: ChannelSettingsDto;

  @ApiPropertyOptional({
    type: UpdateWhatsappSenderDto,
    description:
      'enables WhatsApp messaging on the number (phone_number_id required when it has no sender yet), or changes ' +
      'the keys sent of its sender',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => UpdateWhatsappSenderDto)
  whatsapp?: UpdateWhatsappSenderDto;
}

export class ListPhoneNumbersQuery extends PageQuery {}

export class SnapshotQuery {
  @ApiProperty({ example: '+14155550123' })
  @IsDefined()
  @IsNotEmpty()
  @IsE164()
  number!: string;
}

export class BindPhoneNumberDto {
  @ApiProperty({ format: 'uuid' })
  @IsDefined()
  @IsNotEmpty()
  @IsUuidValue()
  phone_number_uuid!: string;

  @ApiProperty({ enum: NUMBER_CHANNELS, isArray: true, example: ['call', 'sms'] })
  @IsDefined()
  @IsArray()
  @NotEmptyWhenArray()
  @ArrayUnique()
  @IsIn(NUMBER_CHANNELS, { each: true, message: `each channel must be one of ${NUMBER_CHANNELS.join(', ')}` })
  channels!: NumberChannel[];
}

export class BindWhatsappDto {
  @ApiProperty({ format: 'uuid' })
  @IsDefined()
  @IsNotEmpty()
  @IsUuidValue()
  phone_number_uuid!: string;
}

export class BindMessengerDto {
  @ApiProperty({ example: '1029384756' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(100)
  @Matches(/^[0-9A-Za-z_.-]+$/, { message: 'page_id must be a Messenger page id' })
  page_id!: string;

  @ApiPropertyOptional({ example: 'Acme Support' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  page_name?: string;
}
