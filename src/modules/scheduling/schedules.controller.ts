import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page, PageQuery } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { CreateScheduleDto, ScheduleResponse, UpdateScheduleDto } from './dto/schedule.dto';
import { SchedulesService } from './schedules.service';

@ApiTags('Scheduling')
@Controller('api/v1/schedules')
export class SchedulesController {
  constructor(private readonly schedules: SchedulesService) {}

  @Get()
  @ApiOperation({ summary: 'List schedules (newest first)' })
  @ApiEnvelope(ScheduleResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: PageQuery): Promise<Page<ScheduleResponse>> {
    return this.schedules.list(ws, q);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a schedule',
    description:
      '`ai_agents` and `availability_type_uuid` must name items of the workspace (422 naming the field).',
  })
  @ApiEnvelope(ScheduleResponse, {
    status: 201,
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
  })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateScheduleDto): Promise<ScheduleResponse> {
    return this.schedules.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a schedule' })
  @ApiEnvelope(ScheduleResponse, { errors: ['INVALID_UUID'] })
  async get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<ScheduleResponse> {
    return this.schedules.toResponse(await this.schedules.get(ws, uuid));
  }

  @Put(':uuid')
  @ApiOperation({ summary: 'Change a schedule (only the keys sent; lists are replaced whole)' })
  @ApiEnvelope(ScheduleResponse, {
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
  })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: UpdateScheduleDto,
  ): Promise<ScheduleResponse> {
    return this.schedules.update(ws, uuid, dto);
  }

  @Delete(':uuid')
  @ApiOperation({
    summary: 'Delete a schedule',
    description: 'A schedule with appointments or appointment requests answers 409 CONFLICT.',
  })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID', 'CONFLICT'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<null> {
    await this.schedules.remove(ws, uuid);
    return null;
  }
}
