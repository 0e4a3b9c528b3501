import { Controller, Get, Headers, Param, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Public } from '@/common/auth/public.decorator';
import { ApiEnvelope, ApiErrors } from '@/common/http/api-response.decorator';
import { RawResponse } from '@/common/http/envelope';
import { UuidParamPipe } from '@/common/http/validation';
import { AppException } from '@/common/errors/app.exception';
import { WebCallTokenStateResponse } from './dto/responses';
import { WebCallsService } from './web-calls.service';

/** The page's files, read once: served from memory, never from a path the request names. */
const ASSETS: Record<string, { file: string; type: string }> = {
  'web-call.js': { file: 'web-call.js', type: 'text/javascript; charset=utf-8' },
  'web-call.css': { file: 'web-call.css', type: 'text/css; charset=utf-8' },
  'audio-worklets.js': { file: 'audio-worklets.js', type: 'text/javascript; charset=utf-8' },
};
const DIR = path.join(__dirname, 'assets');
const read = (file: string) => fs.readFileSync(path.join(DIR, file));
const PAGE = read('page.html');
const EMBED = read('embed.js');
const FILES = Object.fromEntries(Object.entries(ASSETS).map(([name, a]) => [name, read(a.file)]));

const TEXT = (type: string) => ({
  status: 200,
  description: type,
  content: { [type]: { schema: { type: 'string' } } },
});

/**
 * The web call page and its files, and the embed script: no API token (the page carries the call's client token in
 * its URL fragment, which no server sees). The page may be framed only by its workspace's allowed origins.
 */
@ApiTags('Web calls')
@Public()
@Controller('hooks/v1/web')
export class WebCallPagesController {
  constructor(private readonly webCalls: WebCallsService) {}

  @Get('calls/:uuid/page')
  @RawResponse()
  @ApiOperation({
    summary:
      'The call page: talk to the agent from a browser (the client token in the URL fragment, #token=…)',
  })
  @ApiProduces('text/html')
  @ApiResponse(TEXT('text/html'))
  @ApiErrors('INVALID_UUID')
  async page(@Param('uuid', UuidParamPipe) uuid: string, @Res() res: Response): Promise<void> {
    const ancestors = ["'self'", ...(await this.webCalls.frameAncestors(uuid))].join(' ');
    res
      .status(200)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Content-Security-Policy':
          "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
          `media-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors}`,
        'Referrer-Policy': 'no-referrer',
        'Permissions-Policy': 'microphone=(self), camera=(), geolocation=()',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(PAGE);
  }

  @Get('calls/:uuid/token')
  @ApiOperation({
    summary: "Whether the page's client token would open the call now (it is not used up by asking)",
    description:
      'The page asks before it opens the socket, so it can say why it cannot (expired, used, call ended). Counted ' +
      'with the socket handshakes of the address.',
  })
  @ApiHeader({ name: 'x-web-call-token', required: true, schema: { type: 'string', maxLength: 100 } })
  @ApiEnvelope(WebCallTokenStateResponse, {
    tenant: false,
    errors: ['INVALID_UUID', 'RESOURCE_NOT_FOUND', 'FORBIDDEN', 'CALL_ENDED', 'RATE_LIMIT_EXCEEDED'],
  })
  tokenState(
    @Param('uuid', UuidParamPipe) uuid: string,
    @Headers('x-web-call-token') token: string | undefined,
    @Headers('origin') origin: string | undefined,
    @Req() req: Request,
  ): Promise<WebCallTokenStateResponse> {
    return this.webCalls.tokenState({
      callId: uuid,
      token: token ?? null,
      ip: req.ip ?? 'unknown',
      origin,
      host: req.headers.host,
    });
  }

  @Get('assets/:name')
  @RawResponse()
  @ApiOperation({ summary: "The call page's script, style and audio worklets" })
  @ApiParam({ name: 'name', schema: { type: 'string', enum: Object.keys(ASSETS) } })
  @ApiProduces('text/javascript', 'text/css')
  @ApiResponse(TEXT('text/javascript'))
  @ApiErrors('RESOURCE_NOT_FOUND')
  asset(@Param('name') name: string, @Res() res: Response): void {
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) throw AppException.notFound('Asset');
    res
      .status(200)
      .set({ 'Content-Type': asset.type, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' })
      .send(FILES[name]);
  }

  @Get('embed.js')
  @RawResponse()
  @ApiOperation({
    summary: "The embed script: a call button and the call page in a frame on the business's site",
    description:
      'See docs/api.md, Web calls: the business’s server starts the call and hands its page_url over.',
  })
  @ApiProduces('text/javascript')
  @ApiResponse(TEXT('text/javascript'))
  embed(@Res() res: Response): void {
    res
      .status(200)
      .set({
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': 'public, max-age=300',
        'Cross-Origin-Resource-Policy': 'cross-origin',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(EMBED);
  }
}
