import { Body, Controller, HttpCode, Param, Post, Query, Req, Header } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '@/common/auth/public.decorator';
import { ApiErrors } from '@/common/http/api-response.decorator';
import { AcceptsForm } from '@/common/http/body.guard';
import { RawResponse } from '@/common/http/envelope';
import { UuidParamPipe } from '@/common/http/validation';
import { Form, TwilioHooks } from './twilio-hooks.service';

export const PROVIDER_HOOKS_TAG = 'Provider hooks';
const TWIML = { status: 200, description: 'TwiML', content: { 'text/xml': { schema: { type: 'string' } } } };
const ATTEMPT = { name: 'attempt', required: false, schema: { type: 'string', maxLength: 20 } } as const;
const NO_CONTENT = { status: 204, description: 'Accepted (repeats are accepted and dropped)' };

function form(body: unknown): Form {
  const out: Form = {};
  if (body && typeof body === 'object')
    for (const [k, v] of Object.entries(body as Record<string, unknown>))
      if (typeof v === 'string') out[k] = v;
  return out;
}

/** Twilio's voice hooks: signed with X-Twilio-Signature over PUBLIC_BASE_URL; no token, no tenant label. */
@ApiTags(PROVIDER_HOOKS_TAG)
@ApiHeader({
  name: 'x-twilio-signature',
  required: false,
  description: "Twilio's signature of PUBLIC_BASE_URL + path + query and the form; missing or wrong: 401",
  schema: { type: 'string', maxLength: 200 },
})
@Public()
@AcceptsForm()
@Controller('hooks/v1/twilio')
export class TwilioHooksController {
  constructor(private readonly hooks: TwilioHooks) {}

  /** Every hook's first step: the form, once Twilio's signature over the URL as called and the form holds (401). */
  private signed(req: Request, body: unknown): Form {
    const f = form(body);
    this.hooks.verify(req.originalUrl, f, req.header('x-twilio-signature'));
    return f;
  }

  @Post('voice/inbound')
  @RawResponse()
  @HttpCode(200)
  @Header('Content-Type', 'text/xml')
  @ApiOperation({
    summary: 'Twilio: an inbound call reached a number (answers TwiML)',
    description:
      'The Voice URL of numbers and of SIP domains. `To`/`From` may be SIP addresses (`sip:+1555...@domain`): ' +
      'the dialled number routes the call. The SIP domain that receives WhatsApp calls from Meta uses ' +
      '`?channel=whatsapp_call`, so the call is served by the number’s `whatsapp_call` binding.',
  })
  @ApiQuery({
    name: 'channel',
    required: false,
    schema: { type: 'string', enum: ['phone', 'whatsapp_call'] },
  })
  @ApiProduces('text/xml')
  @ApiResponse(TWIML)
  @ApiErrors('BAD_REQUEST', 'INVALID_SIGNATURE', 'INVALID_FORMAT')
  inbound(
    @Req() req: Request,
    @Query('channel') channel: string | undefined,
    @Body() body: unknown,
  ): Promise<string> {
    const f = this.signed(req, body);
    return this.hooks.inbound(f, channel === 'whatsapp_call' ? 'whatsapp_call' : 'phone');
  }

  @Post('calls/:uuid/status')
  @RawResponse()
  @HttpCode(204)
  @ApiOperation({ summary: "Twilio: a call's status changed" })
  @ApiResponse(NO_CONTENT)
  @ApiErrors('BAD_REQUEST', 'INVALID_SIGNATURE', 'INVALID_UUID', 'RESOURCE_NOT_FOUND')
  async status(
    @Req() req: Request,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() body: unknown,
  ): Promise<void> {
    await this.hooks.status(uuid, this.signed(req, body));
  }

  @Post('calls/:uuid/amd')
  @RawResponse()
  @HttpCode(204)
  @ApiOperation({
    summary: "Twilio: the answering-machine detection's answer (AsyncAmdStatusCallback)",
    description:
      'Form fields `CallSid`, `AnsweredBy` (`human`, `machine_start`, `machine_end_beep`, `machine_end_silence`, ' +
      '`machine_end_other`, `fax`, `unknown`) and `MachineDetectionDuration` (ms). Sets the call’s `answered_by` ' +
      'and acts on a machine or fax as its voicemail policy says; a repeat is dropped, one after the call ended is ' +
      'kept in its provider log only.',
  })
  @ApiResponse(NO_CONTENT)
  @ApiErrors('BAD_REQUEST', 'INVALID_SIGNATURE', 'INVALID_UUID', 'RESOURCE_NOT_FOUND')
  async amd(
    @Req() req: Request,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() body: unknown,
  ): Promise<void> {
    await this.hooks.amd(uuid, this.signed(req, body));
  }

  @Post('calls/:uuid/recording')
  @RawResponse()
  @HttpCode(204)
  @ApiOperation({ summary: "Twilio: a call's recording changed status" })
  @ApiResponse(NO_CONTENT)
  @ApiErrors('BAD_REQUEST', 'INVALID_SIGNATURE', 'INVALID_UUID', 'RESOURCE_NOT_FOUND')
  async recording(
    @Req() req: Request,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() body: unknown,
  ): Promise<void> {
    await this.hooks.recording(uuid, this.signed(req, body));
  }

  @Post('calls/:uuid/dial-status')
  @RawResponse()
  @HttpCode(204)
  @ApiOperation({ summary: "Twilio: the forwarded leg's status (answered)" })
  @ApiQuery(ATTEMPT)
  @ApiResponse(NO_CONTENT)
  @ApiErrors('BAD_REQUEST', 'INVALID_SIGNATURE', 'INVALID_UUID', 'RESOURCE_NOT_FOUND')
  async dialStatus(
    @Req() req: Request,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Query('attempt') attempt: string | undefined,
    @Body() body: unknown,
  ): Promise<void> {
    await this.hooks.dialStatus(uuid, attempt ?? '', this.signed(req, body));
  }

  @Post('calls/:uuid/dial')
  @RawResponse()
  @HttpCode(200)
  @Header('Content-Type', 'text/xml')
  @ApiOperation({
    summary: 'Twilio: a forward’s <Dial> ended (answers TwiML: back to the stream, or hang up)',
  })
  @ApiProduces('text/xml')
  @ApiResponse(TWIML)
  @ApiErrors('BAD_REQUEST', 'INVALID_SIGNATURE', 'INVALID_UUID', 'RESOURCE_NOT_FOUND')
  dial(
    @Req() req: Request,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Query('attempt') attempt: string | undefined,
    @Body() body: unknown,
  ): Promise<string> {
    return this.hooks.dialEnded(uuid, attempt ?? '', this.signed(req, body));
  }

  @Post('calls/:uuid/whisper')
  @RawResponse()
  @HttpCode(200)
  @Header('Content-Type', 'text/xml')
  @ApiOperation({ summary: 'Twilio: what the person answering a forward hears first (answers TwiML)' })
  @ApiQuery({ name: 'text', required: false, schema: { type: 'string', maxLength: 500 } })
  @ApiProduces('text/xml')
  @ApiResponse(TWIML)
  @ApiErrors('BAD_REQUEST', 'INVALID_SIGNATURE', 'INVALID_UUID')
  whisper(
    @Req() req: Request,
    @Param('uuid', UuidParamPipe) _uuid: string,
    @Query('text') text: string | undefined,
    @Body() body: unknown,
  ): string {
    this.signed(req, body);
    return this.hooks.whisper(String(text ?? '').slice(0, 500));
  }
}
