import { Process, Processor } from '@nestjs/bull';
import { Inject, Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { CallRecordings } from '@/modules/calls/api/call-recordings.service';

type Jobs = JobPayloads['voice'];
const DOWNLOAD_TIMEOUT_MS = 60_000;

/** The voice queue: finished Twilio recordings are downloaded, stored, then deleted at Twilio. */
@Processor(QUEUES.voice)
export class VoiceProcessor {
  private readonly logger = new Logger(VoiceProcessor.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly recordings: CallRecordings,
  ) {}

  private auth(): string {
    const { accountSid, authToken } = this.config.twilio;
    return `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
  }

  @Process({ name: 'recording', concurrency: 4 })
  async recording(job: Job<Jobs['recording']>): Promise<void> {
    const { workspaceId, callId, recordingSid, recordingUrl } = job.data;
    // Only Twilio's own API is fetched with the account's credentials.
    if (!recordingUrl.startsWith(`${this.config.twilio.apiUrl}/`))
      throw new Error(`recording URL outside TWILIO_API_URL: ${recordingUrl.slice(0, 200)}`);
    const res = await fetch(`${recordingUrl.replace(/\.(wav|mp3|json)$/, '')}.wav`, {
      headers: { authorization: this.auth() },
      signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`recording download answered HTTP ${res.status}`);
    const wav = Buffer.from(await res.arrayBuffer());
    await this.recordings.store(workspaceId, callId, wav, {
      duration: job.data.duration,
      channels: job.data.channels,
    });
    const account = this.config.twilio.accountSid;
    const del = await fetch(
      `${this.config.twilio.apiUrl}/2010-04-01/Accounts/${account}/Recordings/${recordingSid}.json`,
      {
        method: 'DELETE',
        headers: { authorization: this.auth() },
        signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS),
      },
    );
    if (!del.ok && del.status !== 404)
      this.logger.warn({ callId, status: del.status }, 'recording stored but not deleted at Twilio');
  }
}
