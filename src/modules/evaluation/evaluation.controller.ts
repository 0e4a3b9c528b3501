import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { ListEvaluationsQuery } from './dto/requests';
import { EvaluationRecordResponse, SessionEvaluationResponse } from './dto/responses';
import { EvaluationService } from './evaluation.service';

@ApiTags('Evaluations')
@Controller('api/v1')
export class EvaluationController {
  constructor(private readonly evaluation: EvaluationService) {}

  @Get('sessions/:uuid/evaluation')
  @ApiOperation({
    summary: "A session's evaluation: its records and summary (evaluation runs automatically at session end)",
  })
  @ApiEnvelope(SessionEvaluationResponse, { errors: ['INVALID_UUID'] })
  forSession(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<SessionEvaluationResponse> {
    return this.evaluation.forSession(ws, uuid);
  }

  @Get('evaluations')
  @ApiOperation({ summary: 'List evaluation records, newest first' })
  @ApiEnvelope(EvaluationRecordResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  list(
    @WorkspaceId() ws: WorkspaceId,
    @Query() q: ListEvaluationsQuery,
  ): Promise<Page<EvaluationRecordResponse>> {
    return this.evaluation.list(ws, q);
  }

  @Get('evaluations/:uuid')
  @ApiOperation({ summary: 'Read an evaluation record' })
  @ApiEnvelope(EvaluationRecordResponse, { errors: ['INVALID_UUID'] })
  get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<EvaluationRecordResponse> {
    return this.evaluation.get(ws, uuid);
  }
}
