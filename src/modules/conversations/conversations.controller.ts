import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { ResponseMessage } from '@/common/http/envelope';
import { Page, PageQuery } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { UsageService } from '@/modules/usage/usage.service';
import { ConversationsService } from './conversations.service';
import { ListConversationsQuery, ListSessionsQuery, OpenConversationDto } from './dto/requests';
import { ProviderMessageResponse } from './dto/message-view.response';
import { ConversationResponse, SessionResponse } from './dto/responses';
import { SessionsService } from './sessions.service';

@ApiTags('Conversations')
@Controller('api/v1/conversations')
export class ConversationsController {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly sessions: SessionsService,
    private readonly usage: UsageService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List conversations, newest first' })
  @ApiEnvelope(ConversationResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  list(
    @WorkspaceId() ws: WorkspaceId,
    @Query() q: ListConversationsQuery,
  ): Promise<Page<ConversationResponse>> {
    return this.conversations.list(ws, q);
  }

  @Post()
  @ApiOperation({ summary: 'Open a text conversation with an agent' })
  @ApiEnvelope(ConversationResponse, {
    status: 201,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
  })
  async open(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: OpenConversationDto,
  ): Promise<ConversationResponse> {
    const c = await this.conversations.open(ws, {
      agentId: dto.agent_uuid,
      channel: dto.channel,
      contactId: dto.contact_uuid,
      phone: dto.phone,
    });
    return ConversationResponse.of(c);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a conversation, with its usage' })
  @ApiEnvelope(ConversationResponse, { errors: ['INVALID_UUID'] })
  async get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<ConversationResponse> {
    const [view, usage] = await Promise.all([
      this.conversations.view(ws, uuid),
      this.usage.ofConversation(ws, uuid),
    ]);
    return { ...view, usage };
  }

  @Get(':uuid/messages')
  @ApiOperation({
    summary: "A conversation's messages, oldest first",
    description: 'Each item is the message as GET /messages/{uuid} answers it, with its provider side.',
  })
  @ApiEnvelope(ProviderMessageResponse, { paginated: true, errors: ['INVALID_UUID', 'INVALID_FORMAT'] })
  messages(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Query() q: PageQuery,
  ): Promise<Page<ProviderMessageResponse>> {
    return this.conversations.listMessages(ws, uuid, q);
  }

  @Get(':uuid/sessions')
  @ApiOperation({ summary: "A conversation's sessions, newest first" })
  @ApiEnvelope(SessionResponse, { paginated: true, errors: ['INVALID_UUID', 'INVALID_FORMAT'] })
  async sessionsOf(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Query() q: PageQuery,
  ): Promise<Page<SessionResponse>> {
    await this.conversations.get(ws, uuid);
    return this.sessions.list(ws, Object.assign(new ListSessionsQuery(), q, { conversation_uuid: uuid }));
  }

  @Post(':uuid/close')
  @ApiOperation({ summary: 'Close a conversation; its active session ends and is evaluated' })
  @ResponseMessage('OK')
  @ApiEnvelope(ConversationResponse, { errors: ['INVALID_UUID', 'CONFLICT'] })
  async close(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<ConversationResponse> {
    return ConversationResponse.of(await this.conversations.close(ws, uuid));
  }
}

@ApiTags('Sessions')
@Controller('api/v1/sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  @ApiOperation({ summary: 'List sessions, newest first' })
  @ApiEnvelope(SessionResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: ListSessionsQuery): Promise<Page<SessionResponse>> {
    return this.sessions.list(ws, q);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a session' })
  @ApiEnvelope(SessionResponse, { errors: ['INVALID_UUID'] })
  async get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<SessionResponse> {
    return SessionResponse.of(await this.sessions.get(ws, uuid));
  }
}
