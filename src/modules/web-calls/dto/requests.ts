import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsInt,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { MetadataField, VariablesField } from '@/common/validation/context-fields';
import { IsUuidValue, OptionalNotNull } from '@/common/validation/validators';

/** `POST /web-calls`: a call the customer takes from a browser. */
export class CreateWebCallDto {
  @ApiProperty({ format: 'uuid' }) @IsDefined() @IsUuidValue() agent_uuid!: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'the contact the caller is, when the business knows' })
  @OptionalNotNull()
  @IsUuidValue()
  contact_uuid?: string;
  @VariablesField()
  variables?: Record<string, unknown>;
  @MetadataField()
  metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ maxLength: 2000, description: "default the agent's settings.voice.first_message" })
  @OptionalNotNull()
  @IsString()
  @MaxLength(2000)
  first_message?: string;
  @ApiPropertyOptional({ minimum: 30, maximum: 7200 })
  @OptionalNotNull()
  @IsInt()
  @Min(30)
  @Max(7200)
  max_duration_seconds?: number;
  @ApiPropertyOptional({
    description:
      "keep a recording of the call (both sides, 16 kHz stereo WAV); default the agent's settings.voice.record, else true",
  })
  @OptionalNotNull()
  @IsBoolean()
  record?: boolean;
}

export class WebCallSettingsDto {
  @ApiProperty({
    type: [String],
    maxItems: 50,
    example: ['https://shop.example.com'],
    description:
      "origins of the business's pages allowed to open the workspace's web calls (scheme, host and port; https, " +
      "or http on localhost); the API's own page origin is always allowed",
  })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(300, { each: true })
  allowed_origins!: string[];
}
