import { Logger } from '@nestjs/common';
import { Client } from 'pg';

/** How long a lost LISTEN connection waits before it connects again. */
export const LISTEN_RETRY_MS = 1_000;

export interface PgListenerOptions {
  url: string;
  channel: string;
  /** The connection's `application_name` (what `pg_stat_activity` shows for it). */
  applicationName: string;
  /** Names the listener in log lines. */
  name: string;
  onNotification(payload: string | undefined): void;
  /** After every LISTEN, the first included: notifications sent while it was down are lost, so this catches up. */
  onListening?(): void;
}

/**
 * A dedicated PostgreSQL connection that LISTENs on one channel and comes back whenever it is lost (a restart, a
 * failover, a terminated backend): it connects again every second until it listens.
 */
export class PgListener {
  private readonly logger: Logger;
  private client: Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: PgListenerOptions) {
    this.logger = new Logger(options.name);
  }

  /** Resolves once the first attempt settled: listening, or retrying in the background. */
  start(): Promise<void> {
    return this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const { url, channel, applicationName, onNotification } = this.options;
    const client = new Client({ connectionString: url, application_name: applicationName });
    client.on('notification', (n) => onNotification(n.payload));
    // A dropped connection emits `error` (unless it ended cleanly) and then `end`: one retry for both.
    client.on('error', (err) => this.lost(client, err.message));
    client.on('end', () => this.lost(client, 'connection ended'));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      this.lost(client, (err as Error).message);
      return;
    }
    if (this.client === client && !this.stopped) this.options.onListening?.();
  }

  private lost(client: Client, reason: string): void {
    if (this.stopped || this.client !== client) return;
    this.client = null;
    this.logger.warn(
      { err: reason, channel: this.options.channel },
      'LISTEN connection lost; connecting again',
    );
    void client.end().catch(() => undefined);
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.stopped) void this.listen();
    }, LISTEN_RETRY_MS);
    this.retry.unref();
  }
}
