import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { randomBytes } from 'node:crypto';
import { AppException } from '@/common/errors/app.exception';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import type { DialRequest, ProviderCallRef, TelephonyAdapter } from './telephony.port';

/**
 * Calls from a browser (`communication: web`): nothing is dialled. The call rings while its client token waits for
 * the page (up to the call's ring timeout, the token's lifetime); the page's socket answers it. Hanging up needs no
 * provider: the process holding the page's socket sees the end on the call's live feed and closes the socket.
 */
@Injectable()
export class WebTelephony implements TelephonyAdapter {
  readonly provider = 'web';
  readonly simulated = false;

  constructor(
    @InjectQueue(QUEUES.calls) private readonly queue: Queue<JobPayloads['calls']['provider-event']>,
  ) {}

  async dial({ workspaceId, callId }: DialRequest): Promise<{ providerCallId: string }> {
    const providerCallId = `WB${randomBytes(16).toString('hex')}`;
    await this.queue.add(
      'provider-event',
      {
        workspaceId,
        callId,
        event: { status: 'ringing', detail: { source: 'web', CallSid: providerCallId } },
      },
      { jobId: `web:${callId}:ringing` },
    );
    return { providerCallId };
  }

  /** Numbers do not place web calls (`POST /call` from a number named `web`); `POST /web-calls` does. */
  unavailableReason(): string {
    return 'Web calls are started with POST /web-calls, not from a phone number';
  }

  async hangup(_call: ProviderCallRef, _answered: boolean): Promise<void> {}

  /** A browser has no line to bridge: a rule's transfer says its error words and the agent carries on. */
  forward(): Promise<{ connected: boolean }> {
    return Promise.resolve({ connected: false });
  }

  sendDigits(): Promise<Record<string, unknown>> {
    return Promise.reject(AppException.conflict('Keys can be pressed on phone calls only'));
  }
}
