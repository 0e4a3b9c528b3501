import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsISO8601, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsE164, IsUuidValue } from '@/common/validation/validators';
import { Channel, CHANNELS } from '../channels';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class OpenConversationDto {
  @ApiProperty({ format: 'uuid' })
  @IsDefined()
  @IsUuidValue()
  agent_uuid!: string;

  @ApiProperty({ enum: CHANNELS, example: 'chat' })
  @IsDefined()
  @IsIn(CHANNELS, { message: `channel must be one of ${CHANNELS.join(', ')}` })
  channel!: Channel;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUuidValue()
  contact_uuid?: string;

  @ApiPropertyOptional({
    example: '+14155552671',
    description: "the customer's number (E.164) on phone, SMS and WhatsApp",
  })
  @IsOptional()
  @IsE164()
  phone?: string;
}

export class PostMessageDto {
  @ApiProperty({ example: 'Where is my order?', maxLength: 10000 })
  @Transform(trim)
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(10000)
  content!: string;
}

export class ListConversationsQuery extends PageQuery {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() agent_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() contact_uuid?: string;
  @ApiPropertyOptional({ enum: CHANNELS })
  @IsOptional()
  @IsIn(CHANNELS, { message: `channel must be one of ${CHANNELS.join(', ')}` })
  channel?: Channel;
  @ApiPropertyOptional({ enum: ['active', 'closed'] })
  @IsOptional()
  @IsIn(['active', 'closed'], { message: 'status must be one of active, closed' })
  status?: 'active' | 'closed';
  @ApiPropertyOptional({ example: '+14155552671' }) @IsOptional() @IsString() @MaxLength(64) phone?: string;
}

export class ListSessionsQuery extends PageQuery {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() agent_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() conversation_uuid?: string;
  @ApiPropertyOptional({ enum: ['active', 'ended'] })
  @IsOptional()
  @IsIn(['active', 'ended'], { message: 'status must be one of active, ended' })
  status?: 'active' | 'ended';
  @ApiPropertyOptional({ example: '2026-11-01T00:00:00Z', description: 'started at or after (inclusive)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;
  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'started before (exclusive)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;
}
