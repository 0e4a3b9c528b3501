import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { CreateRuleDto, RuleListQuery, RuleResponse, UpdateRuleDto } from './dto/rule.dto';
import { RulesService } from './rules.service';

@ApiTags('Rules')
@Controller('api/v1/rules')
export class RulesController {
  constructor(private readonly service: RulesService) {}

  @Get()
  @ApiOperation({ summary: 'List contact rules (newest first); filters `type`, `search` (in the name)' })
  @ApiEnvelope(RuleResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: RuleListQuery): Promise<Page<RuleResponse>> {
    return this.service.list(ws, q);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a rule',
    description: '`type: text` makes one attempt (both call limits 1).',
  })
  @ApiEnvelope(RuleResponse, { status: 201, errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT'] })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateRuleDto): Promise<RuleResponse> {
    return this.service.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a rule' })
  @ApiEnvelope(RuleResponse, { errors: ['INVALID_UUID'] })
  get(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<RuleResponse> {
    return this.service.get(ws, uuid);
  }

  @Put(':uuid')
  @ApiOperation({ summary: 'Change a rule (the keys sent)' })
  @ApiEnvelope(RuleResponse, {
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
  })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: UpdateRuleDto,
  ): Promise<RuleResponse> {
    return this.service.update(ws, uuid, dto);
  }

  @Delete(':uuid')
  @ApiOperation({
    summary: 'Delete a rule',
    description: 'Refused (409) while a running or paused campaign uses it.',
  })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID', 'CONFLICT'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<null> {
    await this.service.remove(ws, uuid);
    return null;
  }
}
