import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { PgListener } from '@/common/persistence/pg-listener';
import { DATABASE_SESSION_NAME, dispatchedByWriter } from '@/database/session-name';
import { DeliveryService } from '../delivery.service';
import { OUTBOX_CHANNEL } from '../outbox.service';

/** How often the safety net runs: missed notifications, lost jobs, deliveries of crashed workers. */
export const SWEEP_INTERVAL_MS = 2_000;

/**
 * Starts delivery as soon as an outbox write commits: a dedicated connection LISTENs for the NOTIFY that
 * `OutboxService.record` sends inside the writing transaction. Events written by this process, or by a process that
 * does not dispatch (API only, scripts), are dispatched at once; those of another dispatching process are left to
 * it, so one commit wakes one dispatcher instead of all (the others' claims would find nothing). A periodic sweep is
 * the safety net (a writer that died before dispatching).
 */
@Injectable()
export class OutboxListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxListener.name);
  private listener: PgListener | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private sweeping = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deliveries: DeliveryService,
    @Inject(DATABASE_SESSION_NAME) private readonly sessionName: string,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.listener = new PgListener({
      url: this.config.database.url,
      channel: OUTBOX_CHANNEL,
      applicationName: `${this.sessionName}:outbox`,
      name: OutboxListener.name,
      // Another dispatching process's writes are its own to dispatch (the sweep catches them if it died meanwhile).
      onNotification: (payload) => {
        if (!dispatchedByWriter(payload, this.sessionName)) void this.dispatch();
      },
      onListening: () => void this.dispatch(),
    });
    await this.listener.start();
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
    void this.sweep();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.listener?.stop();
  }

  private async dispatch(): Promise<void> {
    if (this.stopped) return;
    await this.deliveries
      .dispatch()
      .catch((err: Error) => this.logger.error({ err: err.message }, 'dispatch failed'));
  }

  private async sweep(): Promise<void> {
    if (this.stopped || this.sweeping) return;
    this.sweeping = true;
    try {
      await this.deliveries.sweep();
    } catch (err) {
      this.logger.error({ err: (err as Error).message }, 'webhook sweep failed');
    } finally {
      this.sweeping = false;
    }
  }
}
