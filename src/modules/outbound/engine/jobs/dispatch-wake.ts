import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bull';
import { PgListener } from '@/common/persistence/pg-listener';
import { QUEUES } from '@/common/queue/queues';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { DATABASE_SESSION_NAME } from '@/database/session-name';
import { OUTBOX_CHANNEL } from '@/modules/events/outbox.service';

/**
 * Wakes within this long of a commit: one dispatch job per slice, however many events commit in it. A campaign
 * call's end does not wait for it (`CampaignSlotWake` claims its slot at once); a pass on every 100 ms of a busy
 * campaign's own events kept the dispatcher busy most of the time for nothing.
 */
const WAKE_SLICE_MS = 500;

/**
 * Runs the dispatcher soon after any outbox write commits (a campaign started, a task created or moved), rather than
 * at the next 2 s pass. The wake-up is a Bull job like the pass itself.
 */
@Injectable()
export class DispatchWake implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DispatchWake.name);
  private listener: PgListener | null = null;
  private stopped = false;
  private lastSlice = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE_SESSION_NAME) private readonly sessionName: string,
    @InjectQueue(QUEUES.outbound) private readonly queue: Queue,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // While the connection is down the repeatable pass still runs every 2 s; once back, a pass catches up.
    this.listener = new PgListener({
      url: this.config.database.url,
      channel: OUTBOX_CHANNEL,
      applicationName: `${this.sessionName}:wake`,
      name: DispatchWake.name,
      onNotification: () => void this.wake(),
      onListening: () => void this.wake(),
    });
    await this.listener.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.listener?.stop();
  }

  private async wake(): Promise<void> {
    const slice = Math.floor(Date.now() / WAKE_SLICE_MS);
    if (this.stopped || slice === this.lastSlice) return;
    this.lastSlice = slice;
    await this.queue
      .add(
        'dispatch',
        {},
        { jobId: `wake:${slice}`, removeOnComplete: true, removeOnFail: true, attempts: 1 },
      )
      .catch((err: Error) => this.logger.warn({ err: err.message }, 'dispatch wake failed'));
  }
}
