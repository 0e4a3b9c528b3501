import {
  applyDecorators,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { WorkspaceId } from '@/common/auth/request-context';
import type { ErrorCode } from '@/common/errors/error-codes';
import {
  ApiEnvelope,
  ApiErrors,
  ErrorBody,
  ShortErrorBodyDto,
  TENANT_ERRORS,
} from '@/common/http/api-response.decorator';
import { Envelope, RawResponse, ResponseMessage } from '@/common/http/envelope';
import { Page } from '@/common/http/pagination';
import { ShortErrorBody } from '@/common/http/short-error-body';
import { UuidParamPipe } from '@/common/http/validation';
import { UsageService } from '@/modules/usage/usage.service';
import { CallControl } from './call-control.service';
import { CallLive } from '../runtime/call-live';
import { CallRecordings } from './call-recordings.service';
import type { LiveAction } from '../runtime/call-runtime.service';
import { CallSimulation, SimulationResponse } from './call-simulation.service';
import { isLive } from '../runtime/call-states';
import { CallPlacement } from './call-placement.service';
import { InboundCalls } from './inbound-calls.service';
import { CallsService } from './calls.service';
import {
  CreateCallDto,
  DtmfActionDto,
  ForwardActionDto,
  HangupActionDto,
  ListCallsQuery,
  SayActionDto,
  SimulateCallDto,
  SimulateInboundDto,
} from '../dto/requests';
import { CallActionResponse, CallResponse } from '../dto/responses';

const NOT_FOUND_SHORT = (status: number) => status === 404;
// Applied after the envelope (written above it), whose general 404 it replaces; an unknown workspace still
// answers the general body.
const SHORT_404 = applyDecorators(
  ApiExtraModels(ShortErrorBodyDto, ErrorBody),
  ApiResponse({
    status: 404,
    description:
      'Unknown call or another workspace\'s: {success: false, message: "Call not found", data: []}; ' +
      'RESOURCE_NOT_FOUND: unknown workspace',
    schema: { oneOf: [{ $ref: getSchemaPath(ShortErrorBodyDto) }, { $ref: getSchemaPath(ErrorBody) }] },
  }),
);
const KEEPALIVE_MS = 15_000;
const WAV = { 'audio/wav': { schema: { type: 'string', format: 'binary' } } };
const ACTION_ERRORS: ErrorCode[] = [
  'VALIDATION_ERROR',
  'INVALID_FORMAT',
  'INVALID_UUID',
  'CONFLICT',
  'CALL_ENDED',
];

@ApiTags('Calls')
@Controller('api/v1')
export class CallsController {
  constructor(
    private readonly calls: CallsService,
    private readonly placement: CallPlacement,
    private readonly inboundCalls: InboundCalls,
    private readonly control: CallControl,
    private readonly simulation: CallSimulation,
    private readonly live: CallLive,
    private readonly recordings: CallRecordings,
    private readonly usage: UsageService,
  ) {}

  @Post('call')
  @ApiOperation({
    summary: 'Place an outbound call (answers at queued; dialling runs in a job)',
    description:
      "Also takes the source product's camelCase body (agentId, participant.number, participant.about, prompt as a " +
      'string, message.start, phoneNumber); with both spellings the snake_case one wins.',
  })
  @ApiEnvelope(CallResponse, {
    status: 201,
    errors: [
      'VALIDATION_ERROR',
      'INVALID_FORMAT',
      'INVALID_UUID',
      'CONFLICT',
      'BLACKLISTED',
      'CONCURRENCY_LIMIT_EXCEEDED',
    ],
  })
  async place(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateCallDto): Promise<Envelope<CallResponse>> {
    return new Envelope(await this.placement.place(ws, dto), 'Call created successfully');
  }

  @Get('calls')
  @ApiOperation({ summary: 'List calls, newest first' })
  @ApiEnvelope(CallResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: ListCallsQuery): Promise<Page<CallResponse>> {
    return this.calls.list(ws, q);
  }

  @Post('calls/simulate-inbound')
  @ApiOperation({
    summary: 'Sandbox: a caller reaches a sandbox number of the workspace (answers in-progress)',
  })
  @ApiEnvelope(CallResponse, {
    status: 201,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'CONFLICT', 'CONCURRENCY_LIMIT_EXCEEDED'],
  })
  simulateInbound(@WorkspaceId() ws: WorkspaceId, @Body() dto: SimulateInboundDto): Promise<CallResponse> {
    return this.inboundCalls.simulateInbound(ws, dto);
  }

  @Get('calls/:uuid')
  @ShortErrorBody(NOT_FOUND_SHORT)
  @SHORT_404
  @ApiOperation({ summary: 'Read a call (its uuid is its conversation_uuid), with its usage' })
  @ApiEnvelope(CallResponse, { errors: ['INVALID_UUID'] })
  async get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<CallResponse> {
    const [call, usage] = await Promise.all([this.calls.get(ws, uuid), this.usage.ofConversation(ws, uuid)]);
    return { ...call, usage };
  }

  @Get('calls/:uuid/live')
  @RawResponse()
  @ApiOperation({
    summary: "The call's live feed (Server-Sent Events: status, transcript, action, then end)",
    description: 'No envelope. An ended call answers one `end` event.',
  })
  // The stream's media type on its 200 only: refusals answer the JSON error body.
  @ApiResponse({
    status: 200,
    description: 'text/event-stream',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiErrors(...TENANT_ERRORS, 'INVALID_UUID')
  async liveFeed(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const first = await this.calls.get(ws, uuid);
    res.status(200).set({
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    const write = (event: string, data: unknown) =>
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (!isLive(first.status as never)) {
      write('end', first);
      res.end();
      return;
    }
    let closed = false;
    const keepalive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    const finish = async () => {
      if (closed) return;
      closed = true;
      clearInterval(keepalive);
      await stop();
      res.end();
    };
    // Events arriving before the current state is written wait for it, so the feed always opens with `status`.
    let held: { event: string; data: unknown }[] | null = [];
    const deliver = (e: { event: string; data: unknown }) => {
      if (closed) return;
      write(e.event, e.data);
      if (e.event === 'end') void finish();
    };
    const stop = await this.live.listen(uuid, (e) => (held ? held.push(e) : deliver(e)));
    req.on('close', () => void finish());
    // Subscribed now: the current state, read again so a change made meanwhile is not missed.
    const current = await this.calls.get(ws, uuid);
    write(isLive(current.status as never) ? 'status' : 'end', current);
    if (!isLive(current.status as never)) return finish();
    const waiting = held;
    held = null;
    waiting.forEach(deliver);
  }

  @Get('calls/:uuid/recording')
  @RawResponse()
  @ApiOperation({ summary: "The call's recording (audio/wav); 404 when there is none" })
  @ApiResponse({ status: 200, description: 'audio/wav, Range supported', content: WAV })
  @ApiResponse({ status: 206, description: 'the requested byte range of the audio/wav file', content: WAV })
  @ApiErrors(...TENANT_ERRORS, 'INVALID_UUID')
  async recording(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.recordings.pathOf(ws, uuid);
    await new Promise<void>((resolve, reject) =>
      res.sendFile(file, { acceptRanges: true, headers: { 'Content-Type': 'audio/wav' } }, (err) =>
        err && !res.headersSent ? reject(err) : resolve(),
      ),
    );
  }

  @Delete('calls/:uuid/recording')
  @ApiOperation({ summary: "Delete the call's recording (answers data: null); 404 when there is none" })
  @ApiEnvelope(null, { errors: ['INVALID_UUID'] })
  async deleteRecording(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<null> {
    await this.recordings.remove(ws, uuid);
    return null;
  }

  @Post('calls/:uuid/simulate')
  @HttpCode(200)
  @ResponseMessage('OK')
  @ApiOperation({
    summary: 'Sandbox: the far end acts (say, dtmf, answer, busy, no_answer, fail, hangup)',
    description: '`say` runs one turn like a text turn and answers {message, reply, action, call}.',
  })
  @ApiEnvelope(null, {
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT', 'CALL_ENDED'],
  })
  simulate(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: SimulateCallDto,
  ): Promise<SimulationResponse> {
    return this.simulation.simulate(ws, uuid, dto);
  }

  @Post('calls/action/:uuid/say')
  @HttpCode(200)
  @ApiOperation({ summary: 'Live action: the agent says a message' })
  @ApiEnvelope(CallActionResponse, { errors: ACTION_ERRORS })
  say(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string, @Body() dto: SayActionDto) {
    return this.act(ws, uuid, { action: 'say', ...dto }, 'Say dispatched');
  }

  @Post('calls/action/:uuid/forward')
  @HttpCode(200)
  @ApiOperation({ summary: 'Live action: forward to a number (a human) or to another agent' })
  @ApiEnvelope(CallActionResponse, { errors: ACTION_ERRORS })
  forward(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: ForwardActionDto,
  ) {
    return this.act(ws, uuid, { action: 'forward', ...dto }, 'Forward dispatched');
  }

  @Post('calls/action/:uuid/hangup')
  @HttpCode(200)
  @ApiOperation({ summary: 'Live action: say goodbye and hang up (cancels a call not answered yet)' })
  @ApiEnvelope(CallActionResponse, { errors: ACTION_ERRORS })
  hangup(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: HangupActionDto,
  ) {
    return this.act(ws, uuid, { action: 'hangup', ...dto }, 'Hangup dispatched');
  }

  @Post('calls/action/:uuid/mute')
  @HttpCode(200)
  @ApiOperation({ summary: 'Live action: the agent stops speaking and replying' })
  @ApiEnvelope(CallActionResponse, { errors: ACTION_ERRORS })
  mute(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string) {
    return this.act(ws, uuid, { action: 'mute' }, 'Mute dispatched');
  }

  @Post('calls/action/:uuid/unmute')
  @HttpCode(200)
  @ApiOperation({ summary: 'Live action: the agent speaks and replies again' })
  @ApiEnvelope(CallActionResponse, { errors: ACTION_ERRORS })
  unmute(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string) {
    return this.act(ws, uuid, { action: 'unmute' }, 'Unmute dispatched');
  }

  @Post('calls/action/:uuid/dtmf')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Live action: the agent presses keys on the line (to navigate a phone menu)',
    description:
      '`digits`: 0-9, * and #; `w` waits half a second (1 to 32 characters). Phone calls only. The keys are ' +
      "stored as the agent's message of type `dtmf`; on Twilio the media stream ends while they play and comes back.",
  })
  @ApiEnvelope(CallActionResponse, { errors: ACTION_ERRORS })
  dtmf(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: DtmfActionDto,
  ) {
    return this.act(ws, uuid, { action: 'dtmf', digits: dto.digits }, 'DTMF dispatched');
  }

  private async act(ws: WorkspaceId, uuid: string, action: LiveAction, message: string) {
    return new Envelope(await this.control.dispatch(ws, uuid, action), message);
  }
}
