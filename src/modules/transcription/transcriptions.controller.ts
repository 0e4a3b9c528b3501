import {
  Body,
  Controller,
  Delete,
  Get,
  Param,
  Post,
  Query,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExtraModels, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { AcceptsMultipart } from '@/common/http/body.guard';
import { Envelope } from '@/common/http/envelope';
import { Page } from '@/common/http/pagination';
import { SingleFileInterceptor } from '@/common/http/single-file.interceptor';
import { UuidParamPipe } from '@/common/http/validation';
import { IdempotencyInterceptor } from '@/modules/idempotency/idempotency.interceptor';
import { CreateTranscriptionDto, CreateTranscriptionSchema, ListTranscriptionsQuery } from './dto/requests';
import { TranscriptionResponse, TranscriptResponse } from './dto/responses';
import { TranscriptionsService, UploadedAudio } from './transcriptions.service';

@ApiTags('Transcriptions')
@ApiExtraModels(CreateTranscriptionDto, CreateTranscriptionSchema)
@Controller('api/v1/transcriptions')
export class TranscriptionsController {
  constructor(private readonly service: TranscriptionsService) {}

  @Post()
  @AcceptsMultipart()
  @UseInterceptors(SingleFileInterceptor('voice_file'), IdempotencyInterceptor)
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody({
    schema: {
      oneOf: [
        { $ref: getSchemaPath(CreateTranscriptionSchema) },
        { $ref: getSchemaPath(CreateTranscriptionDto) },
      ],
    },
  })
  @ApiOperation({
    summary:
      'Submit a recording to transcribe (voice_file up to 128 MB, or voice_url); processed asynchronously',
  })
  @ApiEnvelope(TranscriptionResponse, {
    status: 201,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'PAYLOAD_TOO_LARGE', 'BAD_REQUEST'],
  })
  async create(
    @WorkspaceId() ws: WorkspaceId,
    @Body() body: Record<string, unknown>,
    @UploadedFile() file: UploadedAudio | undefined,
  ): Promise<Envelope<TranscriptionResponse>> {
    return new Envelope(
      await this.service.create(ws, body, file),
      'Transcription request submitted successfully',
    );
  }

  @Get()
  @ApiOperation({ summary: 'List transcriptions, newest first' })
  @ApiEnvelope(TranscriptionResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  list(
    @WorkspaceId() ws: WorkspaceId,
    @Query() q: ListTranscriptionsQuery,
  ): Promise<Page<TranscriptionResponse>> {
    return this.service.list(ws, q);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a transcription request and its state' })
  @ApiEnvelope(TranscriptionResponse, { errors: ['INVALID_UUID'] })
  read(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<TranscriptionResponse> {
    return this.service.read(ws, id);
  }

  @Get(':uuid/transcript')
  @ApiOperation({ summary: 'The transcript with timed segments (completed transcriptions only)' })
  @ApiEnvelope(TranscriptResponse, { errors: ['INVALID_UUID', 'CONFLICT'] })
  transcript(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<TranscriptResponse> {
    return this.service.transcript(ws, id);
  }

  @Post(':uuid/retry')
  @ApiOperation({ summary: 'Queue a failed transcription again' })
  @ApiEnvelope(TranscriptionResponse, { errors: ['INVALID_UUID', 'CONFLICT'] })
  retry(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<TranscriptionResponse> {
    return this.service.retry(ws, id);
  }

  @Delete(':uuid')
  @ApiOperation({ summary: 'Delete a transcription with its audio and transcript (not while processing)' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID', 'CONFLICT'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) id: string): Promise<null> {
    await this.service.remove(ws, id);
    return null;
  }
}
