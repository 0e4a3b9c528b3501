import { ApiProperty } from '@nestjs/swagger';
import { CallResponse } from '@/modules/calls/dto/responses';

const TS = '2025-01-01T12:00:00.000Z';

export class WebCallResponse {
  @ApiProperty({ type: CallResponse, description: 'the call, communication web, status queued' })
  call!: CallResponse;
  @ApiProperty({
    example: 'wct_3q2+7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    description:
      'the client token: opens this call’s socket once, until expires_at; only its hash is kept, it is never shown again',
  })
  client_token!: string;
  @ApiProperty({ example: TS }) expires_at!: string;
  @ApiProperty({
    example:
      'https://api.example.com/hooks/v1/web/calls/0190f3a2-7c1e-7a3b-8c4d-1234567890ab/page#token=wct_...',
    description: 'the call page, the token in its fragment (never sent to a server); open it or frame it',
  })
  page_url!: string;
  @ApiProperty({
    example: 'wss://api.example.com/hooks/v1/web/calls/0190f3a2-7c1e-7a3b-8c4d-1234567890ab?token=wct_...',
    description: 'the call’s socket for a client of its own (the web call protocol)',
  })
  websocket_url!: string;
}

export class WebCallSettingsResponse {
  @ApiProperty({ type: [String], example: ['https://shop.example.com'] }) allowed_origins!: string[];
  @ApiProperty({
    example: 'https://api.example.com',
    description: 'the origin of the call page, always allowed',
  })
  own_origin!: string;
}

export class WebCallTokenStateResponse {
  @ApiProperty({ format: 'uuid' }) call_uuid!: string;
  @ApiProperty({ example: 'ringing', description: 'the call’s status' }) status!: string;
  @ApiProperty({ example: TS }) expires_at!: string;
}
