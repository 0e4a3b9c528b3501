import { Body, Controller, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { UuidParamPipe } from '@/common/http/validation';
import { PostMessageDto } from '@/modules/conversations/dto/requests';
import { TurnResponse } from '@/modules/conversations/dto/responses';
import { outcomeOf } from './turn-events';
import { TurnRuntime } from './turn-runtime.service';

/**
 * A text conversation's turn over the API. The conversations' other routes are the conversations module's; this one
 * runs the turn pipeline, so it lives here, under the same path and tag (the OpenAPI document names its operation
 * as before).
 */
@ApiTags('Conversations')
@Controller('api/v1/conversations')
export class ConversationTurnsController {
  constructor(private readonly runtime: TurnRuntime) {}

  @Post(':uuid/messages')
  @ApiOperation({
    operationId: 'Conversations_turn',
    summary: "The customer's turn: stored, then guard rules, routing rules, or the agent's reply",
    description:
      'Answers the stored message, the agent reply (absent with the reason when no model is configured) and the action of a rule that fired.',
  })
  @ApiEnvelope(TurnResponse, {
    status: 201,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  turn(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: PostMessageDto,
  ): Promise<TurnResponse> {
    return outcomeOf(this.runtime.takeTurn({ workspaceId: ws, conversationId: uuid, content: dto.content }));
  }
}
