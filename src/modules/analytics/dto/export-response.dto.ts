import { ApiProperty } from '@nestjs/swagger';
import { CHANNELS, Channel } from '@/modules/conversations/channels';
import { EXPORT_POLICIES, ExportPolicy } from '@/modules/workspaces/workspace.entity';

export type ContentDisclosure = 'raw' | 'masked';

export class ExportedMessageDto {
  @ApiProperty({ format: 'uuid', example: '019a9a60-1d2e-7c3b-8a4f-5e6d7c8b9a01' }) message_uuid!: string;
  @ApiProperty({ format: 'uuid', example: '019a9a5f-0a1b-7c2d-9e3f-4a5b6c7d8e9f' })
  conversation_uuid!: string;
  @ApiProperty({ format: 'uuid', nullable: true, example: '019a9a5f-0a1b-7c2d-9e3f-4a5b6c7d8ea0' })
  session_uuid!: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, example: '019a9a40-7b6c-7d5e-8f4a-3b2c1d0e9f8a' })
  contact_uuid!: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, example: '019a9a53-0c4e-7a51-9a3e-2f4c8b7d6e10' })
  agent_uuid!: string | null;
  @ApiProperty({ enum: CHANNELS, example: 'whatsapp' }) channel!: Channel;
  @ApiProperty({ example: 'WhatsApp' }) channel_label!: string;
  @ApiProperty({ enum: ['inbound', 'outbound'], example: 'inbound' }) direction!: string;
  @ApiProperty({ enum: ['customer', 'agent', 'system'], example: 'customer' }) sender!: string;
  @ApiProperty({ example: 'text' }) message_type!: string;
  @ApiProperty({
    description: '`***` when the workspace policy is masked',
    example: 'Hi, is my order shipped?',
  })
  content!: string;
  @ApiProperty({ enum: ['raw', 'masked'], example: 'raw' }) content_disclosure!: ContentDisclosure;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T09:15:02.123Z' }) created_at!: string;
}

export class ExportMetaDto {
  @ApiProperty({ enum: EXPORT_POLICIES.filter((p) => p !== 'disabled'), example: 'raw' })
  policy!: ExportPolicy;
  @ApiProperty({ enum: CHANNELS, nullable: true, example: 'whatsapp' }) channel!: Channel | null;
  @ApiProperty({ format: 'date-time', nullable: true, example: '2026-11-01T00:00:00.000Z' })
  from!: string | null;
  @ApiProperty({
    format: 'date-time',
    description:
      'Exclusive upper bound of this walk: the `to` sent, or the export horizon fixed on the first page when none ' +
      'was sent or it lies later. Start the next walk with `from` set to it.',
    example: '2026-11-22T05:59:58.999Z',
  })
  to!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T06:00:00.000Z' }) generated_at!: string;
}

export class ExportPaginationDto {
  @ApiProperty({ type: String, nullable: true, description: 'null when has_more is false' })
  next_cursor!: string | null;
  @ApiProperty({ example: true }) has_more!: boolean;
  @ApiProperty({ example: 500 }) limit!: number;
}

/** The message export answers this body itself, without the success envelope. */
export class MessageExportDto {
  @ApiProperty({ type: ExportMetaDto }) meta!: ExportMetaDto;
  @ApiProperty({ type: [ExportedMessageDto] }) messages!: ExportedMessageDto[];
  @ApiProperty({ type: ExportPaginationDto }) pagination!: ExportPaginationDto;
}
