import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsObject, IsOptional } from 'class-validator';
import { OptionalNotNull } from '@/common/validation/validators';

export class MemorizeSettingsDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { fields: ['email', 'company'] },
  })
  @IsOptional()
  @IsObject()
  contact_field_settings?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { remember_last_topics: 5 } })
  @IsOptional()
  @IsObject()
  conversation_settings?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { whatsapp: true } })
  @IsOptional()
  @IsObject()
  channel_settings?: Record<string, unknown>;

  @ApiPropertyOptional({ example: true })
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;
}

export class MemorizeSettingsResponse {
  @ApiProperty({ enum: ['default', 'agent'] }) source!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} }) contact_field_settings!: object;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} }) conversation_settings!: object;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} }) channel_settings!: object;
  @ApiProperty({ example: true }) is_active!: boolean;
  @ApiProperty({ type: String, example: '2026-11-22T04:17:55.123Z', nullable: true }) updated_at!:
    string | null;
}
