import { InjectQueue } from '@nestjs/bull';
import { Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse } from '@nestjs/swagger';
import type { Queue } from 'bull';
import type { Response } from 'express';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';
import { ApiErrors } from '@/common/http/api-response.decorator';
import { RawResponse } from '@/common/http/envelope';
import { HookRequest, ProviderHook } from '@/common/http/provider-hook';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { isUuid } from '@/common/validation/validators';
import type { DeliveryStatus } from '@/providers/messaging/messaging.port';
import { isValidTwilioSignature } from '@/providers/twilio/twilio-signature';
import { InboundQueue } from './inbound-queue';
import { isValidMetaSignature, META_STATUS_RETRY, parseMetaNotification } from './meta-webhook';

type Jobs = JobPayloads['messaging'];
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';
const TWILIO_STATUS: Record<string, DeliveryStatus> = {
  accepted: 'queued',
  queued: 'queued',
  sending: 'queued',
  scheduled: 'queued',
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  undelivered: 'undelivered',
  failed: 'failed',
};
const invalid = () => new AppException('INVALID_SIGNATURE', 'The request signature is missing or wrong');

/**
 * Twilio and Meta callbacks: authenticated by the provider's signature alone (over PUBLIC_BASE_URL and the path
 * as called, or the raw body), answered at once; the work runs in jobs.
 */
@ProviderHook()
@Controller('hooks/v1')
export class MessagingHooksController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly inbound: InboundQueue,
    @InjectQueue(QUEUES.messaging)
    private readonly queue: Queue<Jobs['provider-status'] | Jobs['template-status']>,
  ) {}

  private twilioSigned(req: HookRequest): Record<string, string> {
    const params = (req.body ?? {}) as Record<string, string>;
    const url = `${this.config.publicBaseUrl}${req.originalUrl}`;
    const signature = req.headers['x-twilio-signature'];
    if (
      !req.rawBody ||
      !isValidTwilioSignature(
        this.config.twilio.authToken ?? '',
        url,
        params,
        typeof signature === 'string' ? signature : undefined,
      )
    )
      throw invalid();
    return params;
  }

  @Post('twilio/sms/inbound')
  @HttpCode(200)
  @RawResponse()
  @ApiOperation({
    summary: 'Twilio: an inbound SMS (signed with X-Twilio-Signature); answers empty TwiML',
    security: [],
  })
  @ApiProduces('text/xml')
  @ApiResponse({
    status: 200,
    description: 'Accepted: `<Response/>`',
    schema: { type: 'string', example: EMPTY_TWIML },
  })
  @ApiErrors('INVALID_SIGNATURE')
  async twilioSms(@Req() req: HookRequest, @Res() res: Response): Promise<void> {
    const p = this.twilioSigned(req);
    if (p.MessageSid && p.From && p.To)
      await this.inbound.push({
        channel: 'sms',
        provider: 'twilio',
        to: p.To,
        from: p.From,
        text: p.Body ?? '',
        messageType: Number(p.NumMedia ?? 0) > 0 && !p.Body ? 'image' : 'text',
        providerMessageId: p.MessageSid,
        receivedAt: Date.now(),
      });
    res.status(200).type('text/xml').send(EMPTY_TWIML);
  }

  @Post('twilio/messages/:messageUuid/status')
  @HttpCode(200)
  @RawResponse()
  @ApiOperation({
    summary: "Twilio: a message's status callback (signed); answers empty TwiML",
    security: [],
  })
  @ApiProduces('text/xml')
  @ApiResponse({ status: 200, description: 'Accepted', schema: { type: 'string', example: EMPTY_TWIML } })
  @ApiErrors('INVALID_SIGNATURE')
  async twilioStatus(
    @Param('messageUuid') messageUuid: string,
    @Req() req: HookRequest,
    @Res() res: Response,
  ): Promise<void> {
    const p = this.twilioSigned(req);
    const status = TWILIO_STATUS[p.MessageStatus ?? ''];
    if (status && isUuid(messageUuid))
      await this.queue.add(
        'provider-status',
        {
          provider: 'twilio',
          messageId: messageUuid,
          status,
          error: p.ErrorCode
            ? { code: p.ErrorCode, message: p.ErrorMessage ?? `Twilio error ${p.ErrorCode}` }
            : null,
        },
        { jobId: `twilio-status:${p.MessageSid ?? messageUuid}:${p.MessageStatus}` },
      );
    res.status(200).type('text/xml').send(EMPTY_TWIML);
  }

  @Get(['meta/whatsapp', 'meta/messenger'])
  @RawResponse()
  @ApiOperation({
    summary: "Meta: the webhook's verify handshake (answers hub.challenge as text/plain)",
    security: [],
  })
  @ApiProduces('text/plain')
  @ApiResponse({
    status: 200,
    description: 'Verified: hub.challenge',
    schema: { type: 'string', example: '1158201444' },
  })
  @ApiResponse({
    status: 403,
    description: 'Wrong mode or verify token',
    schema: { type: 'string', example: 'Forbidden' },
  })
  verify(@Req() req: HookRequest, @Res() res: Response): void {
    const q = req.query as Record<string, unknown>;
    const token = this.config.meta.verifyToken;
    const ok = q['hub.mode'] === 'subscribe' && !!token && q['hub.verify_token'] === token;
    const challenge = typeof q['hub.challenge'] === 'string' ? q['hub.challenge'] : '';
    if (ok) res.status(200).type('text/plain').send(challenge);
    else res.status(403).type('text/plain').send('Forbidden');
  }

  @Post(['meta/whatsapp', 'meta/messenger'])
  @HttpCode(200)
  @RawResponse()
  @ApiOperation({
    summary: 'Meta: WhatsApp, Messenger and Instagram notifications (X-Hub-Signature-256 over the raw body)',
    security: [],
  })
  @ApiProduces('text/plain')
  @ApiResponse({
    status: 200,
    description: 'Accepted',
    schema: { type: 'string', example: 'EVENT_RECEIVED' },
  })
  @ApiErrors('INVALID_SIGNATURE', 'BAD_REQUEST')
  async meta(@Req() req: HookRequest, @Res() res: Response): Promise<void> {
    if (!isValidMetaSignature(this.config.meta.appSecret, req.rawBody, req.headers['x-hub-signature-256']))
      throw invalid();
    // Signed, but not a notification Meta sends (a JSON object): the request, not the signature, is at fault.
    let body: unknown = null;
    try {
      body = JSON.parse(req.rawBody!.toString('utf8'));
    } catch {
      body = null;
    }
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new AppException(
        'BAD_REQUEST',
        'Malformed JSON in request body: a notification is a JSON object',
      );
    const note = parseMetaNotification(body, Date.now());
    for (const item of note.messages) await this.inbound.push(item);
    for (const s of note.statuses)
      await this.queue.add(
        'provider-status',
        { provider: 'meta', providerMessageId: s.providerMessageId, status: s.status, error: s.error },
        // A repeat of this status is dropped by the job id; the job itself retries until the wamid is stored.
        { jobId: `meta-status:${s.providerMessageId}:${s.status}`, ...META_STATUS_RETRY },
      );
    for (const t of note.templates)
      await this.queue.add('template-status', {
        providerTemplateId: t.providerTemplateId,
        status: t.status,
        reason: t.reason,
      });
    res.status(200).type('text/plain').send('EVENT_RECEIVED');
  }
}
