import { Controller, Get, Param, ParseEnumPipe, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { AppException } from '@/common/errors/app.exception';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { ACTION_LOG_TYPES, ActionLogType } from './action-log.entity';
import {
  ActionLogResponse,
  ListActionLogsQuery,
  ListRequestLogsQuery,
  RequestLogResponse,
} from './dto/logs.dto';
import { LogsService } from './logs.service';

const typePipe = new ParseEnumPipe(Object.fromEntries(ACTION_LOG_TYPES.map((t) => [t, t])), {
  exceptionFactory: () =>
    AppException.invalid('type', `type must be one of ${ACTION_LOG_TYPES.join(', ')}`, 'INVALID_FORMAT'),
});

@ApiTags('Logs')
@Controller('api/v1/logs')
export class LogsController {
  constructor(private readonly logs: LogsService) {}

  @Get('requests')
  @ApiOperation({ summary: 'The API request log of the workspace, newest first (no bodies, no headers)' })
  @ApiEnvelope(RequestLogResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  listRequests(
    @WorkspaceId() ws: WorkspaceId,
    @Query() q: ListRequestLogsQuery,
  ): Promise<Page<RequestLogResponse>> {
    return this.logs.listRequests(ws, q);
  }

  @Get('requests/:uuid')
  @ApiOperation({ summary: 'One request of the log' })
  @ApiEnvelope(RequestLogResponse, { errors: ['INVALID_UUID'] })
  readRequest(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<RequestLogResponse> {
    return this.logs.readRequest(ws, id);
  }

  @Get('actions')
  @ApiOperation({ summary: 'Task attempts, flow executions and intent calls, newest first' })
  @ApiEnvelope(ActionLogResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  listActions(
    @WorkspaceId() ws: WorkspaceId,
    @Query() q: ListActionLogsQuery,
  ): Promise<Page<ActionLogResponse>> {
    return this.logs.listActions(ws, q);
  }

  @Get('actions/:type/:uuid')
  @ApiOperation({ summary: 'One action of the log' })
  @ApiParam({ name: 'type', enum: ACTION_LOG_TYPES })
  @ApiEnvelope(ActionLogResponse, { errors: ['INVALID_UUID', 'INVALID_FORMAT'] })
  readAction(
    @WorkspaceId() ws: WorkspaceId,
    @Param('type', typePipe) type: ActionLogType,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<ActionLogResponse> {
    return this.logs.readAction(ws, type, id);
  }
}
