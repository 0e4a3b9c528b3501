import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { AppointmentsService } from './appointments.service';
import {
  AppointmentResponse,
  AppointmentStatusDto,
  CreateAppointmentDto,
  ListAppointmentsQuery,
  UpdateAppointmentDto,
} from './dto/appointment.dto';

const WRITE_ERRORS = [
  'BAD_REQUEST',
  'VALIDATION_ERROR',
  'INVALID_FORMAT',
  'INVALID_UUID',
  'CONFLICT',
] as const;

@ApiTags('Scheduling')
@Controller('api/v1/appointments')
export class AppointmentsController {
  constructor(private readonly appointments: AppointmentsService) {}

  @Get()
  @ApiOperation({
    summary: 'List appointments by start_time, filtered by schedule, contact, status and days',
  })
  @ApiEnvelope(AppointmentResponse, {
    paginated: true,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
  })
  list(
    @WorkspaceId() ws: WorkspaceId,
    @Query() q: ListAppointmentsQuery,
  ): Promise<Page<AppointmentResponse>> {
    return this.appointments.list(ws, q);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an appointment',
    description:
      'Two appointments of one schedule may not overlap (409 CONFLICT) unless one is cancelled; the database ' +
      'enforces it, so concurrent requests for one slot get exactly one success.',
  })
  @ApiEnvelope(AppointmentResponse, { status: 201, errors: [...WRITE_ERRORS] })
  async create(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: CreateAppointmentDto,
  ): Promise<AppointmentResponse> {
    return this.appointments.toResponse(ws, await this.appointments.create(ws, dto));
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read an appointment' })
  @ApiEnvelope(AppointmentResponse, { errors: ['INVALID_UUID'] })
  async get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<AppointmentResponse> {
    return this.appointments.toResponse(ws, await this.appointments.get(ws, uuid));
  }

  @Put(':uuid')
  @ApiOperation({
    summary: 'Reschedule or change an appointment (only the keys sent)',
    description:
      'start_time alone moves the appointment and keeps its length; end_time must be after start_time.',
  })
  @ApiEnvelope(AppointmentResponse, { errors: [...WRITE_ERRORS] })
  async update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: UpdateAppointmentDto,
  ): Promise<AppointmentResponse> {
    return this.appointments.toResponse(ws, await this.appointments.update(ws, uuid, dto));
  }

  @Post(':uuid/status')
  @ApiOperation({ summary: 'Set the status of an appointment (pending, approved, cancelled, completed)' })
  @ApiEnvelope(AppointmentResponse, { errors: [...WRITE_ERRORS] })
  async status(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: AppointmentStatusDto,
  ): Promise<AppointmentResponse> {
    return this.appointments.toResponse(ws, await this.appointments.setStatus(ws, uuid, dto.status));
  }

  @Delete(':uuid')
  @ApiOperation({ summary: 'Delete an appointment' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<null> {
    await this.appointments.remove(ws, uuid);
    return null;
  }
}
