import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Envelope } from '@/common/http/envelope';
import { UuidParamPipe } from '@/common/http/validation';
import { AppointmentRequestsService } from './appointment-requests.service';
import { AppointmentsService } from './appointments.service';
import { AppointmentResponse } from './dto/appointment.dto';
import {
  AppointmentRequestResponse,
  ApproveRequestDto,
  CreateAppointmentRequestDto,
  ListAppointmentRequestsQuery,
  RejectRequestDto,
} from './dto/appointment-request.dto';

@ApiTags('Scheduling')
@Controller('api/v1/appointment-requests')
export class AppointmentRequestsController {
  constructor(
    private readonly requests: AppointmentRequestsService,
    private readonly appointments: AppointmentsService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List appointment requests for review',
    description:
      'Ordered by start_time, then created_at; `data` is a plain array (not paginated), at most 1000 items. ' +
      '`start_date` and `end_date` are inclusive UTC days on start_time.',
  })
  @ApiEnvelope(AppointmentRequestResponse, {
    isArray: true,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
  })
  list(
    @WorkspaceId() ws: WorkspaceId,
    @Query() q: ListAppointmentRequestsQuery,
  ): Promise<AppointmentRequestResponse[]> {
    return this.requests.list(ws, q);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an appointment request',
    description:
      'start_time in the future; the contact by contact_uuid, or by contact_name and contact_email (the contact ' +
      'with that email, created when there is none); end_time defaults to the availability-type duration.',
  })
  @ApiEnvelope(AppointmentRequestResponse, {
    status: 201,
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
  })
  async create(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: CreateAppointmentRequestDto,
  ): Promise<AppointmentRequestResponse> {
    return this.requests.toResponse(ws, await this.requests.create(ws, dto));
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read an appointment request' })
  @ApiEnvelope(AppointmentRequestResponse, { errors: ['INVALID_UUID'] })
  async get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<AppointmentRequestResponse> {
    return this.requests.toResponse(ws, await this.requests.get(ws, uuid));
  }

  @Post(':uuid/approve')
  @ApiOperation({ summary: 'Approve a pending request (409 from any other state)' })
  @ApiEnvelope(AppointmentRequestResponse, { errors: ['INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'] })
  async approve(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: ApproveRequestDto,
  ): Promise<Envelope<AppointmentRequestResponse>> {
    const request = await this.requests.approve(ws, uuid, dto.approval_note);
    return new Envelope(await this.requests.toResponse(ws, request), 'Appointment request approved');
  }

  @Post(':uuid/reject')
  @ApiOperation({ summary: 'Reject a pending request (409 from any other state)' })
  @ApiEnvelope(AppointmentRequestResponse, { errors: ['INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'] })
  async reject(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: RejectRequestDto,
  ): Promise<Envelope<AppointmentRequestResponse>> {
    const request = await this.requests.reject(ws, uuid, dto.rejection_reason);
    return new Envelope(await this.requests.toResponse(ws, request), 'Appointment request rejected');
  }

  @Post(':uuid/cancel')
  @ApiOperation({ summary: 'Cancel a pending or approved request that is not converted (409 otherwise)' })
  @ApiEnvelope(AppointmentRequestResponse, { errors: ['INVALID_UUID', 'CONFLICT'] })
  async cancel(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<Envelope<AppointmentRequestResponse>> {
    const request = await this.requests.cancel(ws, uuid);
    return new Envelope(await this.requests.toResponse(ws, request), 'Appointment request cancelled');
  }

  @Post(':uuid/convert')
  @ApiOperation({
    summary: 'Convert a pending or approved request into an appointment',
    description:
      'Creates the appointment and marks the request approved with its `appointment` set, in one transaction. ' +
      'Converting twice, converting a rejected or cancelled request, or a slot that overlaps another ' +
      'appointment: 409 CONFLICT, and nothing changes.',
  })
  @ApiEnvelope(AppointmentResponse, { status: 201, errors: ['INVALID_UUID', 'CONFLICT'] })
  async convert(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<Envelope<AppointmentResponse>> {
    const appointment = await this.requests.convert(ws, uuid);
    return new Envelope(
      await this.appointments.toResponse(ws, appointment),
      'Appointment created from the request',
    );
  }
}
