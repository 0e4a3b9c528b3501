import { applyDecorators, Body, Controller, Post, UploadedFile, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope, ShortErrorBodyDto } from '@/common/http/api-response.decorator';
import { AcceptsMultipart } from '@/common/http/body.guard';
import { Envelope } from '@/common/http/envelope';
import { ShortErrorBody } from '@/common/http/short-error-body';
import { SingleFileInterceptor } from '@/common/http/single-file.interceptor';
import { IdempotencyInterceptor } from '@/modules/idempotency/idempotency.interceptor';
import { CopyPasteImportDto, FileImportSchema, WebsiteImportDto } from './dto/import.dto';
import { DataSourceResponse } from './dto/responses';
import { ImportsService, UploadedFile as Upload } from './imports.service';

const SHORT_ERRORS = (status: number) => status === 422 || status >= 500;
const ShortErrorDocs = () =>
  applyDecorators(
    ApiResponse({
      status: 422,
      description: 'Validation failure: `{success: false, message: <messages joined with " | ">, data: []}`',
      type: ShortErrorBodyDto,
    }),
    ApiResponse({
      status: 500,
      description: 'An unexpected failure, in the short body',
      type: ShortErrorBodyDto,
    }),
    ApiResponse({
      status: 503,
      description: 'A dependency is unavailable, in the short body',
      type: ShortErrorBodyDto,
    }),
  );

@ApiTags('Data')
@Controller('api/v1/data/import')
export class ImportsController {
  constructor(private readonly service: ImportsService) {}

  @Post('copypaste')
  @ShortErrorBody(SHORT_ERRORS)
  @ApiOperation({ summary: 'Import pasted text; split into chunks by a job' })
  @ApiEnvelope(DataSourceResponse, { status: 201 })
  @ShortErrorDocs()
  async copyPaste(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: CopyPasteImportDto,
  ): Promise<Envelope<DataSourceResponse>> {
    return new Envelope(await this.service.importPaste(ws, dto), 'Import queued');
  }

  @Post('website')
  @ShortErrorBody(SHORT_ERRORS)
  @ApiOperation({
    summary:
      'Crawl a website (depth 0 to 3, same site, robots.txt obeyed); crawling continues asynchronously',
  })
  @ApiEnvelope(DataSourceResponse, { status: 201 })
  @ShortErrorDocs()
  async website(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: WebsiteImportDto,
  ): Promise<Envelope<DataSourceResponse>> {
    return new Envelope(await this.service.importWebsite(ws, dto), 'Crawl queued');
  }

  @Post('file')
  @AcceptsMultipart()
  @ShortErrorBody(SHORT_ERRORS)
  @UseInterceptors(SingleFileInterceptor('file'), IdempotencyInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: FileImportSchema })
  @ApiOperation({
    summary:
      'Upload a file (CSV, Excel, JSON, XML, PDF, text or audio, up to 128 MB); processed asynchronously',
  })
  @ApiEnvelope(DataSourceResponse, { status: 201, errors: ['PAYLOAD_TOO_LARGE'] })
  @ShortErrorDocs()
  async file(
    @WorkspaceId() ws: WorkspaceId,
    @Body() body: Record<string, unknown>,
    @UploadedFile() file: Upload | undefined,
  ): Promise<Envelope<DataSourceResponse>> {
    return new Envelope(await this.service.importFile(ws, body, file), 'Import queued');
  }
}
