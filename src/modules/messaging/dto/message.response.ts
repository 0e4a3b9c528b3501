import { ApiProperty } from '@nestjs/swagger';
import { ConversationResponse } from '@/modules/conversations/dto/responses';
import { ProviderMessageResponse } from '@/modules/conversations/dto/message-view.response';

/** What a simulated inbound message did: the stored message, the reply sent (if any), the conversation. */
export class SimulatedInboundResponse {
  @ApiProperty({ type: ProviderMessageResponse }) message!: ProviderMessageResponse;
  @ApiProperty({ type: ProviderMessageResponse, nullable: true }) reply!: ProviderMessageResponse | null;
  @ApiProperty({ type: ConversationResponse }) conversation!: ConversationResponse;
}
