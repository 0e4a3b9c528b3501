import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page, PageQuery } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { AvailabilityTypesService } from './availability-types.service';
import {
  AvailabilityTypeResponse,
  CreateAvailabilityTypeDto,
  UpdateAvailabilityTypeDto,
} from './dto/availability-type.dto';

@ApiTags('Scheduling')
@Controller('api/v1/availability-types')
export class AvailabilityTypesController {
  constructor(private readonly types: AvailabilityTypesService) {}

  @Get()
  @ApiOperation({ summary: 'List availability types (newest first)' })
  @ApiEnvelope(AvailabilityTypeResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: PageQuery): Promise<Page<AvailabilityTypeResponse>> {
    return this.types.list(ws, q);
  }

  @Post()
  @ApiOperation({ summary: 'Create an availability type (a meeting length)' })
  @ApiEnvelope(AvailabilityTypeResponse, {
    status: 201,
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT'],
  })
  create(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: CreateAvailabilityTypeDto,
  ): Promise<AvailabilityTypeResponse> {
    return this.types.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read an availability type' })
  @ApiEnvelope(AvailabilityTypeResponse, { errors: ['INVALID_UUID'] })
  get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<AvailabilityTypeResponse> {
    return this.types.get(ws, uuid);
  }

  @Put(':uuid')
  @ApiOperation({ summary: 'Change an availability type (only the keys sent)' })
  @ApiEnvelope(AvailabilityTypeResponse, {
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
  })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: UpdateAvailabilityTypeDto,
  ): Promise<AvailabilityTypeResponse> {
    return this.types.update(ws, uuid, dto);
  }

  @Delete(':uuid')
  @ApiOperation({
    summary: 'Delete an availability type',
    description: 'Schedules using it are left without one.',
  })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<null> {
    await this.types.remove(ws, uuid);
    return null;
  }
}
