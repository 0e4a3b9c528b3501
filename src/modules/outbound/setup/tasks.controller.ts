import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { ResponseMessage } from '@/common/http/envelope';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import {
  CreateTaskDto,
  TaskDetailResponse,
  TaskListQuery,
  TaskResponse,
  UpdateTaskDto,
} from './dto/task.dto';
import { TasksService } from './tasks.service';

const MOVE_ERRORS = ['INVALID_UUID', 'CONFLICT'] as const;

@ApiTags('Tasks')
@Controller('api/v1/tasks')
export class TasksController {
  constructor(private readonly service: TasksService) {}

  @Get()
  @ApiOperation({ summary: 'List tasks (by scheduled_at, then priority descending)' })
  @ApiEnvelope(TaskResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: TaskListQuery): Promise<Page<TaskResponse>> {
    return this.service.list(ws, q);
  }

  @Post()
  @ApiOperation({ summary: 'Schedule a call or a WhatsApp template (at scheduled)' })
  @ApiEnvelope(TaskResponse, {
    status: 201,
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
  })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateTaskDto): Promise<TaskResponse> {
    return this.service.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a task with its attempts' })
  @ApiEnvelope(TaskDetailResponse, { errors: ['INVALID_UUID'] })
  get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<TaskDetailResponse> {
    return this.service.get(ws, uuid);
  }

  @Put(':uuid')
  @ApiOperation({ summary: 'Change a task while scheduled, pending or on hold (else 409)' })
  @ApiEnvelope(TaskResponse, {
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: UpdateTaskDto,
  ): Promise<TaskResponse> {
    return this.service.update(ws, uuid, dto);
  }

  @Post(':uuid/cancel')
  @ResponseMessage('Task cancelled')
  @ApiOperation({ summary: 'Cancel a task that has not started (in progress: 409)' })
  @ApiEnvelope(TaskResponse, { status: 200, errors: [...MOVE_ERRORS] })
  cancel(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<TaskResponse> {
    return this.service.apply(ws, uuid, 'cancel');
  }

  @Post(':uuid/hold')
  @ResponseMessage('Task on hold')
  @ApiOperation({ summary: 'Hold a scheduled or pending task' })
  @ApiEnvelope(TaskResponse, { status: 200, errors: [...MOVE_ERRORS] })
  hold(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<TaskResponse> {
    return this.service.apply(ws, uuid, 'hold');
  }

  @Post(':uuid/release')
  @ResponseMessage('Task released')
  @ApiOperation({ summary: 'Release a held task to where it was' })
  @ApiEnvelope(TaskResponse, { status: 200, errors: [...MOVE_ERRORS] })
  release(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<TaskResponse> {
    return this.service.apply(ws, uuid, 'release');
  }

  @Post(':uuid/retry')
  @ResponseMessage('Task scheduled again')
  @ApiOperation({ summary: 'One more attempt of a failed or expired task, due now' })
  @ApiEnvelope(TaskResponse, { status: 200, errors: [...MOVE_ERRORS] })
  retry(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<TaskResponse> {
    return this.service.apply(ws, uuid, 'retry');
  }
}
