import { Body, Controller, Delete, Get, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { ResponseMessage } from '@/common/http/envelope';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { AgentsService } from './agents.service';
import { CreateAgentDto, ListAgentsQuery, UpdateAgentDto } from './dto/agent.dto';
import { AgentResponse } from './dto/agent.response';
import { RuleTestDto } from './dto/collections.dto';
import { RuleTestResponse } from './dto/rule-test.response';
import { RuleDecision } from './rules/rule-engine';
import { RuleEngineService } from './rules/rule-engine.service';
import { TOOL_DRY_RUN, ToolDryRun, ToolDryRunner } from './rules/tool-dry-run.port';

@ApiTags('Agents')
@Controller('api/v1/agents')
export class AgentsController {
  constructor(
    private readonly agents: AgentsService,
    private readonly engine: RuleEngineService,
    @Inject(TOOL_DRY_RUN) private readonly tools: ToolDryRunner,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List agents, newest first',
    description:
      'Filter by status; search is case-insensitive in name, company_name and role; per_page at most 100.',
  })
  @ApiEnvelope(AgentResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() query: ListAgentsQuery): Promise<Page<AgentResponse>> {
    return this.agents.list(ws, query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an agent',
    description: 'Only name is required; status defaults to pending.',
  })
  @ApiEnvelope(AgentResponse, { status: 201, errors: ['VALIDATION_ERROR', 'INVALID_FORMAT'] })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateAgentDto): Promise<AgentResponse> {
    return this.agents.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read an agent with its knowledge, rules, webhooks, numbers and channels' })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  read(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) id: string): Promise<AgentResponse> {
    return this.agents.view(ws, id);
  }

  @Patch(':uuid')
  @ApiOperation({
    summary: 'Change an agent (only the keys sent)',
    description: 'Each settings block (voice, text, memorize, evaluation) is merged key by key.',
  })
  @ApiEnvelope(AgentResponse, { errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'] })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: UpdateAgentDto,
  ): Promise<AgentResponse> {
    return this.agents.update(ws, id, dto);
  }

  @Delete(':uuid')
  @ApiOperation({
    summary: 'Delete an agent and everything it holds; its numbers and pages stay on the account',
  })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) id: string): Promise<null> {
    await this.agents.remove(ws, id);
    return null;
  }

  @Post(':uuid/rules/test')
  @ApiOperation({
    summary: 'Run the live rule engine on an utterance, without side effects',
    description:
      'Guards first (first match wins), then routing by ascending priority. Intent checks use the language model ' +
      'when LLM_BASE_URL (or the agent custom_llm_url) is set, else the local similarity classifier (threshold 0.5). ' +
      '`tools` tells which intent the model (or the classifier) would call, with which parameters, without running it.',
  })
  @ResponseMessage('OK')
  @ApiEnvelope(RuleTestResponse, {
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
    idempotent: false,
  })
  async testRules(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: RuleTestDto,
  ): Promise<RuleDecision & { tools: ToolDryRun }> {
    const agent = await this.agents.view(ws, id);
    const [decision, tools] = await Promise.all([
      this.engine.evaluate(agent, dto.utterance, dto.channel, { customLlmUrl: agent.custom_llm_url }),
      this.tools.dryRun(ws, agent, dto.utterance, dto.channel),
    ]);
    return { ...decision, tools };
  }
}
