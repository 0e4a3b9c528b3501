import { Body, Controller, Delete, Param, Patch, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { UuidParamPipe } from '@/common/http/validation';
import { AgentsService } from '../agents.service';
import {
  GuardRuleDto,
  IntentDto,
  NoteDto,
  ProcedureDto,
  ReplaceGuardRulesDto,
  ReplaceGuidelinesDto,
  ReplaceIntentsDto,
  ReplaceNotesDto,
  ReplaceProceduresDto,
  ReplaceRoutingRulesDto,
  ReplaceTrainingDto,
  ReplaceWebhooksDto,
  RoutingRuleDto,
  TrainingDto,
  UpdateGuardRuleDto,
  UpdateIntentDto,
  UpdateNoteDto,
  UpdateProcedureDto,
  UpdateRoutingRuleDto,
  UpdateTrainingDto,
  UpdateWebhookDto,
  WebhookDto,
} from '../dto/collections.dto';
import { AgentResponse } from '../dto/agent.response';
import { AgentCollectionsService } from './agent-collections.service';

const BODY_ERRORS = ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'] as const;

/** The collections an agent holds. Every write answers the whole updated agent. */
@ApiTags('Agent knowledge and rules')
@Controller('api/v1/agents/:uuid')
export class AgentCollectionsController {
  constructor(
    private readonly collections: AgentCollectionsService,
    private readonly agents: AgentsService,
  ) {}

  @Post('guidelines')
  @ApiOperation({
    summary: 'Add a guideline',
    description: 'Answers the whole agent. Without order it goes last (max + 1).',
  })
  @ApiEnvelope(AgentResponse, { status: 201, errors: [...BODY_ERRORS] })
  async addGuideline(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: NoteDto,
  ): Promise<AgentResponse> {
    await this.collections.add(ws, id, 'guidelines', dto);
    return this.agents.view(ws, id);
  }

  @Put('guidelines')
  @ApiOperation({
    summary: 'Replace all guidelines',
    description:
      'Old items are deleted first, then the new ones inserted, in one transaction. Without order it goes last (max + 1).',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS] })
  async replaceGuideline(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: ReplaceGuidelinesDto,
  ): Promise<AgentResponse> {
    await this.collections.replace(ws, id, 'guidelines', dto.guidelines);
    return this.agents.view(ws, id);
  }

  @Patch('guidelines/:itemUuid')
  @ApiOperation({
    summary: 'Change one guideline (only the keys sent)',
    description: 'The other items are kept.',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS] })
  async patchGuideline(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
    @Body() dto: UpdateNoteDto,
  ): Promise<AgentResponse> {
    await this.collections.patch(ws, id, 'guidelines', itemId, dto);
    return this.agents.view(ws, id);
  }

  @Delete('guidelines/:itemUuid')
  @ApiOperation({
    summary: 'Remove one guideline',
    description: 'The other items are kept. Answers the whole agent.',
  })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  async removeGuideline(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
  ): Promise<AgentResponse> {
    await this.collections.remove(ws, id, 'guidelines', itemId);
    return this.agents.view(ws, id);
  }

  @Post('notes')
  @ApiOperation({
    summary: 'Add a note',
    description: 'Answers the whole agent. Without order it goes last (max + 1).',
  })
  @ApiEnvelope(AgentResponse, { status: 201, errors: [...BODY_ERRORS] })
  async addNote(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: NoteDto,
  ): Promise<AgentResponse> {
    await this.collections.add(ws, id, 'notes', dto);
    return this.agents.view(ws, id);
  }

  @Put('notes')
  @ApiOperation({
    summary: 'Replace all notes',
    description:
      'Old items are deleted first, then the new ones inserted, in one transaction. Without order it goes last (max + 1).',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS] })
  async replaceNote(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: ReplaceNotesDto,
  ): Promise<AgentResponse> {
    await this.collections.replace(ws, id, 'notes', dto.notes);
    return this.agents.view(ws, id);
  }

  @Patch('notes/:itemUuid')
  @ApiOperation({ summary: 'Change one note (only the keys sent)', description: 'The other items are kept.' })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS] })
  async patchNote(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
    @Body() dto: UpdateNoteDto,
  ): Promise<AgentResponse> {
    await this.collections.patch(ws, id, 'notes', itemId, dto);
    return this.agents.view(ws, id);
  }

  @Delete('notes/:itemUuid')
  @ApiOperation({
    summary: 'Remove one note',
    description: 'The other items are kept. Answers the whole agent.',
  })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  async removeNote(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
  ): Promise<AgentResponse> {
    await this.collections.remove(ws, id, 'notes', itemId);
    return this.agents.view(ws, id);
  }

  @Post('training')
  @ApiOperation({ summary: 'Add a training example', description: 'Answers the whole agent.' })
  @ApiEnvelope(AgentResponse, { status: 201, errors: [...BODY_ERRORS] })
  async addTraining(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: TrainingDto,
  ): Promise<AgentResponse> {
    await this.collections.add(ws, id, 'training', dto);
    return this.agents.view(ws, id);
  }

  @Put('training')
  @ApiOperation({
    summary: 'Replace all training examples',
    description: 'Old items are deleted first, then the new ones inserted, in one transaction.',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS] })
  async replaceTraining(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: ReplaceTrainingDto,
  ): Promise<AgentResponse> {
    await this.collections.replace(ws, id, 'training', dto.training);
    return this.agents.view(ws, id);
  }

  @Patch('training/:itemUuid')
  @ApiOperation({
    summary: 'Change one training example (only the keys sent)',
    description: 'The other items are kept.',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS] })
  async patchTraining(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
    @Body() dto: UpdateTrainingDto,
  ): Promise<AgentResponse> {
    await this.collections.patch(ws, id, 'training', itemId, dto);
    return this.agents.view(ws, id);
  }

  @Delete('training/:itemUuid')
  @ApiOperation({
    summary: 'Remove one training example',
    description: 'The other items are kept. Answers the whole agent.',
  })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  async removeTraining(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
  ): Promise<AgentResponse> {
    await this.collections.remove(ws, id, 'training', itemId);
    return this.agents.view(ws, id);
  }

  @Post('procedures')
  @ApiOperation({
    summary: 'Add a procedure',
    description:
      'Answers the whole agent. Every step intent_uuid must name an intent of this agent (422 naming the field).',
  })
  @ApiEnvelope(AgentResponse, { status: 201, errors: [...BODY_ERRORS, 'INVALID_UUID'] })
  async addProcedure(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: ProcedureDto,
  ): Promise<AgentResponse> {
    await this.collections.add(ws, id, 'procedures', dto);
    return this.agents.view(ws, id);
  }

  @Put('procedures')
  @ApiOperation({
    summary: 'Replace all procedures',
    description:
      'Old items are deleted first, then the new ones inserted, in one transaction. Every step intent_uuid must name an intent of this agent (422 naming the field).',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS, 'INVALID_UUID'] })
  async replaceProcedure(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: ReplaceProceduresDto,
  ): Promise<AgentResponse> {
    await this.collections.replace(ws, id, 'procedures', dto.procedures);
    return this.agents.view(ws, id);
  }

  @Patch('procedures/:itemUuid')
  @ApiOperation({
    summary: 'Change one procedure (only the keys sent)',
    description: 'The other items are kept.',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS, 'INVALID_UUID'] })
  async patchProcedure(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
    @Body() dto: UpdateProcedureDto,
  ): Promise<AgentResponse> {
    await this.collections.patch(ws, id, 'procedures', itemId, dto);
    return this.agents.view(ws, id);
  }

  @Delete('procedures/:itemUuid')
  @ApiOperation({
    summary: 'Remove one procedure',
    description: 'The other items are kept. Answers the whole agent.',
  })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  async removeProcedure(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
  ): Promise<AgentResponse> {
    await this.collections.remove(ws, id, 'procedures', itemId);
    return this.agents.view(ws, id);
  }

  @Post('intents')
  @ApiOperation({
    summary: 'Add an intent',
    description:
      'Answers the whole agent. The key is generated from the name when absent and is unique per agent (409 on a duplicate).',
  })
  @ApiEnvelope(AgentResponse, { status: 201, errors: [...BODY_ERRORS, 'CONFLICT'] })
  async addIntent(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: IntentDto,
  ): Promise<AgentResponse> {
    await this.collections.add(ws, id, 'intents', dto);
    return this.agents.view(ws, id);
  }

  @Put('intents')
  @ApiOperation({
    summary: 'Replace all intents',
    description:
      'Old items are deleted first, then the new ones inserted, in one transaction. The key is generated from the name when absent and is unique per agent (409 on a duplicate).',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS, 'CONFLICT'] })
  async replaceIntent(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: ReplaceIntentsDto,
  ): Promise<AgentResponse> {
    await this.collections.replace(ws, id, 'intents', dto.intents);
    return this.agents.view(ws, id);
  }

  @Patch('intents/:itemUuid')
  @ApiOperation({
    summary: 'Change one intent (only the keys sent)',
    description: 'The other items are kept.',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS, 'CONFLICT'] })
  async patchIntent(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
    @Body() dto: UpdateIntentDto,
  ): Promise<AgentResponse> {
    await this.collections.patch(ws, id, 'intents', itemId, dto);
    return this.agents.view(ws, id);
  }

  @Delete('intents/:itemUuid')
  @ApiOperation({
    summary: 'Remove one intent',
    description: 'The other items are kept. Answers the whole agent.',
  })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  async removeIntent(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
  ): Promise<AgentResponse> {
    await this.collections.remove(ws, id, 'intents', itemId);
    return this.agents.view(ws, id);
  }

  @Post('webhooks')
  @ApiOperation({
    summary: 'Add a webhook',
    description:
      'Answers the whole agent. At most 5 per agent (409 WEBHOOK_LIMIT_REACHED); secret_key is stored encrypted and never returned.',
  })
  @ApiEnvelope(AgentResponse, { status: 201, errors: [...BODY_ERRORS, 'WEBHOOK_LIMIT_REACHED'] })
  async addWebhook(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: WebhookDto,
  ): Promise<AgentResponse> {
    await this.collections.add(ws, id, 'webhooks', dto);
    return this.agents.view(ws, id);
  }

  @Put('webhooks')
  @ApiOperation({
    summary: 'Replace all webhooks',
    description:
      'Old items are deleted first, then the new ones inserted, in one transaction. At most 5 per agent (409 WEBHOOK_LIMIT_REACHED); secret_key is stored encrypted and never returned.',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS, 'WEBHOOK_LIMIT_REACHED'] })
  async replaceWebhook(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: ReplaceWebhooksDto,
  ): Promise<AgentResponse> {
    await this.collections.replace(ws, id, 'webhooks', dto.webhooks);
    return this.agents.view(ws, id);
  }

  @Patch('webhooks/:itemUuid')
  @ApiOperation({
    summary: 'Change one webhook (only the keys sent)',
    description: 'The other items are kept.',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS, 'WEBHOOK_LIMIT_REACHED'] })
  async patchWebhook(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
    @Body() dto: UpdateWebhookDto,
  ): Promise<AgentResponse> {
    await this.collections.patch(ws, id, 'webhooks', itemId, dto);
    return this.agents.view(ws, id);
  }

  @Delete('webhooks/:itemUuid')
  @ApiOperation({
    summary: 'Remove one webhook',
    description: 'The other items are kept. Answers the whole agent.',
  })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  async removeWebhook(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('itemUuid', UuidParamPipe) itemId: string,
  ): Promise<AgentResponse> {
    await this.collections.remove(ws, id, 'webhooks', itemId);
    return this.agents.view(ws, id);
  }

  @Post('routing-rules')
  @ApiOperation({
    summary: 'Add a routing rule',
    description:
      'Answers the whole agent. Without priority the rule goes last (max + 1). destination_agent_uuid must be an agent of this workspace.',
  })
  @ApiEnvelope(AgentResponse, { status: 201, errors: [...BODY_ERRORS, 'INVALID_UUID'] })
  async addRoutingRule(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: RoutingRuleDto,
  ): Promise<AgentResponse> {
    await this.collections.add(ws, id, 'routing_rules', dto);
    return this.agents.view(ws, id);
  }

  @Put('routing-rules')
  @ApiOperation({
    summary: 'Replace all routing rules',
    description:
      'Old items are deleted first, then the new ones inserted, in one transaction. Without priority the rule goes last (max + 1). destination_agent_uuid must be an agent of this workspace.',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS, 'INVALID_UUID'] })
  async replaceRoutingRule(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: ReplaceRoutingRulesDto,
  ): Promise<AgentResponse> {
    await this.collections.replace(ws, id, 'routing_rules', dto.routing_rules);
    return this.agents.view(ws, id);
  }

  @Patch('routing-rules/:ruleUuid')
  @ApiOperation({
    summary: 'Change one routing rule (only the keys sent)',
    description: 'The other items are kept.',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS, 'INVALID_UUID'] })
  async patchRoutingRule(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('ruleUuid', UuidParamPipe) itemId: string,
    @Body() dto: UpdateRoutingRuleDto,
  ): Promise<AgentResponse> {
    await this.collections.patch(ws, id, 'routing_rules', itemId, dto);
    return this.agents.view(ws, id);
  }

  @Delete('routing-rules/:ruleUuid')
  @ApiOperation({
    summary: 'Remove one routing rule',
    description: 'The other items are kept. Answers the whole agent.',
  })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  async removeRoutingRule(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('ruleUuid', UuidParamPipe) itemId: string,
  ): Promise<AgentResponse> {
    await this.collections.remove(ws, id, 'routing_rules', itemId);
    return this.agents.view(ws, id);
  }

  @Post('guard-rules')
  @ApiOperation({
    summary: 'Add a guard rule',
    description:
      'Answers the whole agent. Guards are checked in insertion order before routing; the first match wins.',
  })
  @ApiEnvelope(AgentResponse, { status: 201, errors: [...BODY_ERRORS, 'INVALID_UUID'] })
  async addGuardRule(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: GuardRuleDto,
  ): Promise<AgentResponse> {
    await this.collections.add(ws, id, 'guard_rules', dto);
    return this.agents.view(ws, id);
  }

  @Put('guard-rules')
  @ApiOperation({
    summary: 'Replace all guard rules',
    description:
      'Old items are deleted first, then the new ones inserted, in one transaction. Guards are checked in insertion order before routing; the first match wins.',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS, 'INVALID_UUID'] })
  async replaceGuardRule(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: ReplaceGuardRulesDto,
  ): Promise<AgentResponse> {
    await this.collections.replace(ws, id, 'guard_rules', dto.guard_rules);
    return this.agents.view(ws, id);
  }

  @Patch('guard-rules/:ruleUuid')
  @ApiOperation({
    summary: 'Change one guard rule (only the keys sent)',
    description: 'The other items are kept.',
  })
  @ApiEnvelope(AgentResponse, { errors: [...BODY_ERRORS, 'INVALID_UUID'] })
  async patchGuardRule(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('ruleUuid', UuidParamPipe) itemId: string,
    @Body() dto: UpdateGuardRuleDto,
  ): Promise<AgentResponse> {
    await this.collections.patch(ws, id, 'guard_rules', itemId, dto);
    return this.agents.view(ws, id);
  }

  @Delete('guard-rules/:ruleUuid')
  @ApiOperation({
    summary: 'Remove one guard rule',
    description: 'The other items are kept. Answers the whole agent.',
  })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  async removeGuardRule(
    @WorkspaceId() ws: string,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('ruleUuid', UuidParamPipe) itemId: string,
  ): Promise<AgentResponse> {
    await this.collections.remove(ws, id, 'guard_rules', itemId);
    return this.agents.view(ws, id);
  }
}
