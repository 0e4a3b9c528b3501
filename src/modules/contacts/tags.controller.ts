import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page, PageQuery } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { CreateTagDto, TagResponse, UpdateTagDto } from './dto/tag.dto';
import { TagsService } from './tags.service';

@ApiTags('Contacts')
@Controller('api/v1/contacts/tags')
export class TagsController {
  constructor(private readonly service: TagsService) {}

  @Get()
  @ApiOperation({ summary: 'List contact tags (by name)' })
  @ApiEnvelope(TagResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: PageQuery): Promise<Page<TagResponse>> {
    return this.service.list(ws, q);
  }

  @Post()
  @ApiOperation({ summary: 'Create a tag' })
  @ApiEnvelope(TagResponse, {
    status: 201,
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'CONFLICT'],
  })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateTagDto): Promise<TagResponse> {
    return this.service.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a tag' })
  @ApiEnvelope(TagResponse, { errors: ['INVALID_UUID'] })
  get(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<TagResponse> {
    return this.service.get(ws, uuid);
  }

  @Put(':uuid')
  @ApiOperation({
    summary: 'Change a tag (only the keys sent)',
    description: 'Contacts carrying the tag keep it.',
  })
  @ApiEnvelope(TagResponse, {
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: UpdateTagDto,
  ): Promise<TagResponse> {
    return this.service.update(ws, uuid, dto);
  }

  @Delete(':uuid')
  @ApiOperation({ summary: 'Delete a tag', description: 'The tag is removed from its contacts.' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<null> {
    await this.service.remove(ws, uuid);
    return null;
  }
}
