import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page, PageQuery } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { CreateStageDto, StageResponse, UpdateStageDto } from './dto/stage.dto';
import { StagesService } from './stages.service';

@ApiTags('Contacts')
@Controller('api/v1/contacts/pipeline/stages')
export class StagesController {
  constructor(private readonly service: StagesService) {}

  @Get()
  @ApiOperation({ summary: 'List pipeline stages (by order)' })
  @ApiEnvelope(StageResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: PageQuery): Promise<Page<StageResponse>> {
    return this.service.list(ws, q);
  }

  @Post()
  @ApiOperation({ summary: 'Create a pipeline stage' })
  @ApiEnvelope(StageResponse, {
    status: 201,
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'CONFLICT'],
  })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateStageDto): Promise<StageResponse> {
    return this.service.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a pipeline stage' })
  @ApiEnvelope(StageResponse, { errors: ['INVALID_UUID'] })
  get(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<StageResponse> {
    return this.service.get(ws, uuid);
  }

  @Put(':uuid')
  @ApiOperation({
    summary: 'Change a pipeline stage (only the keys sent)',
    description: 'Contacts in the stage stay in it.',
  })
  @ApiEnvelope(StageResponse, {
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: UpdateStageDto,
  ): Promise<StageResponse> {
    return this.service.update(ws, uuid, dto);
  }

  @Delete(':uuid')
  @ApiOperation({
    summary: 'Delete a pipeline stage',
    description: 'Contacts in the stage are left without a stage.',
  })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<null> {
    await this.service.remove(ws, uuid);
    return null;
  }
}
