import { Controller, Get, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope, ApiErrors, ErrorBody, TENANT_ERRORS } from '@/common/http/api-response.decorator';
import { RawResponse } from '@/common/http/envelope';
import { AggregatesService } from './aggregates.service';
import { AnalyticsQuery } from './dto/analytics.query';
import {
  CallAnalyticsDto,
  EvaluationAnalyticsDto,
  SessionAnalyticsDto,
  UsageAnalyticsDto,
} from './dto/analytics-response.dto';
import { ExportMessagesQuery } from './dto/export-messages.query';
import { MessageExportDto } from './dto/export-response.dto';
import { MessageExportService } from './message-export.service';

@ApiTags('Analytics')
@Controller('api/v1/analytics')
export class AnalyticsController {
  constructor(
    private readonly exports: MessageExportService,
    private readonly aggregates: AggregatesService,
  ) {}

  @Get('messages')
  @RawResponse()
  @ApiOperation({
    summary: 'Raw message export',
    description:
      'Messages in created_at then message_uuid order, a keyset page at a time. Follow `pagination.next_cursor` ' +
      'until `has_more` is false: the walk returns each message once, however many arrive meanwhile. Answered ' +
      'without the success envelope. Workspace policy ANALYTICS_MESSAGES_EXPORT: `disabled` answers 403, ' +
      '`masked` replaces every content with `***`.',
  })
  @ApiBearerAuth()
  @ApiExtraModels(MessageExportDto)
  @ApiOkResponse({ type: MessageExportDto, description: 'One page of the export (no success envelope)' })
  @ApiResponse({
    status: 403,
    description: 'FORBIDDEN: the workspace policy disables the export, or the token lacks the read scope',
    type: ErrorBody,
  })
  @ApiErrors(...TENANT_ERRORS, 'INVALID_FORMAT', 'INVALID_UUID', 'VALIDATION_ERROR')
  exportMessages(
    @WorkspaceId() workspaceId: WorkspaceId,
    @Query() query: ExportMessagesQuery,
  ): Promise<MessageExportDto> {
    return this.exports.page(workspaceId, query);
  }

  @Get('sessions')
  @ApiOperation({
    summary: 'Session aggregates',
    description:
      'Sessions started in [from, to): count, ended by reason, mean duration, messages per session; totals, per ' +
      'channel and per day in `timezone`.',
  })
  @ApiEnvelope(SessionAnalyticsDto, { errors: ['INVALID_FORMAT', 'INVALID_UUID', 'VALIDATION_ERROR'] })
  sessions(
    @WorkspaceId() workspaceId: WorkspaceId,
    @Query() query: AnalyticsQuery,
  ): Promise<SessionAnalyticsDto> {
    return this.aggregates.sessions(workspaceId, query);
  }

  @Get('evaluations')
  @ApiOperation({
    summary: 'Evaluation aggregates',
    description:
      'Evaluation records created in [from, to), per feature: counts by status, counts of each value or label, ' +
      'mean score, success rate; totals, per channel and per day in `timezone`.',
  })
  @ApiEnvelope(EvaluationAnalyticsDto, { errors: ['INVALID_FORMAT', 'INVALID_UUID', 'VALIDATION_ERROR'] })
  evaluations(
    @WorkspaceId() workspaceId: WorkspaceId,
    @Query() query: AnalyticsQuery,
  ): Promise<EvaluationAnalyticsDto> {
    return this.aggregates.evaluations(workspaceId, query);
  }

  @Get('calls')
  @ApiOperation({
    summary: 'Call aggregates',
    description:
      'Calls (phone, whatsapp_call and web conversations) started in [from, to): count, inbound, outbound, ' +
      'answered, durations and their usage (with its cost when the workspace has a price table); totals, per ' +
      'channel and per day in `timezone`.',
  })
  @ApiEnvelope(CallAnalyticsDto, { errors: ['INVALID_FORMAT', 'INVALID_UUID', 'VALIDATION_ERROR'] })
  calls(@WorkspaceId() workspaceId: WorkspaceId, @Query() query: AnalyticsQuery): Promise<CallAnalyticsDto> {
    return this.aggregates.calls(workspaceId, query);
  }

  @Get('usage')
  @ApiOperation({
    summary: 'Usage aggregates',
    description:
      'Usage of the conversations started in [from, to) (every channel; a call is its conversation): model tokens, ' +
      'speech-to-text seconds, text-to-speech characters, call minutes by leg, tool calls, and their cost under ' +
      "the workspace's current price table (`cost: null` without one); totals, per channel, per day in " +
      '`timezone` and per agent. Not paginated, like the other aggregates: one bucket per channel, day and agent.',
  })
  @ApiEnvelope(UsageAnalyticsDto, { errors: ['INVALID_FORMAT', 'INVALID_UUID', 'VALIDATION_ERROR'] })
  usage(@WorkspaceId() workspaceId: WorkspaceId, @Query() query: AnalyticsQuery): Promise<UsageAnalyticsDto> {
    return this.aggregates.usage(workspaceId, query);
  }
}
