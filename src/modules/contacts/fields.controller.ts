import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page, PageQuery } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { CreateFieldDto, FieldResponse, UpdateFieldDto } from './dto/field.dto';
import { FieldsService } from './fields.service';

@ApiTags('Contacts')
@Controller('api/v1/contacts/fields')
export class FieldsController {
  constructor(private readonly service: FieldsService) {}

  @Get()
  @ApiOperation({ summary: 'List custom contact field definitions (by key)' })
  @ApiEnvelope(FieldResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: PageQuery): Promise<Page<FieldResponse>> {
    return this.service.list(ws, q);
  }

  @Post()
  @ApiOperation({ summary: 'Create a custom field' })
  @ApiEnvelope(FieldResponse, {
    status: 201,
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'CONFLICT'],
  })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateFieldDto): Promise<FieldResponse> {
    return this.service.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a custom field' })
  @ApiEnvelope(FieldResponse, { errors: ['INVALID_UUID'] })
  get(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<FieldResponse> {
    return this.service.get(ws, uuid);
  }

  @Put(':uuid')
  @ApiOperation({
    summary: 'Change a custom field (only the keys sent)',
    description:
      'A type or option change that stored values do not fit answers 409 CONFLICT; a new key renames the stored values.',
  })
  @ApiEnvelope(FieldResponse, {
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: UpdateFieldDto,
  ): Promise<FieldResponse> {
    return this.service.update(ws, uuid, dto);
  }

  @Delete(':uuid')
  @ApiOperation({
    summary: 'Delete a custom field',
    description: 'The values of the field are removed from every contact.',
  })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<null> {
    await this.service.remove(ws, uuid);
    return null;
  }
}
