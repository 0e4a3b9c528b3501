import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { RequestLogRow, RequestLogsRepository } from './request-logs.repository';

/** How often the buffer is written: one batch insert a second per process. */
export const FLUSH_INTERVAL_MS = 1000;
/** Rows kept while the database is slow or away; past it the oldest are dropped (and counted in a warning). */
export const MAX_BUFFERED = 20_000;
const BATCH = 1000;

/**
 * The request log off the request path: the answer's `finish` only pushes a row onto an array; a flush a second
 * writes what gathered in multi-row INSERTs of up to 1000 rows. A failed flush keeps the rows for the next one (up
 * to MAX_BUFFERED). The flush is the process's own I/O batching, not a product timer: a process that dies loses
 * at most the last second of log rows, never work.
 */
@Injectable()
export class RequestLogBuffer implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(RequestLogBuffer.name);
  private rows: RequestLogRow[] = [];
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private dropped = 0;

  constructor(
    private readonly repo: RequestLogsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get enabled(): boolean {
    return this.config.requestLog;
  }

  onModuleInit(): void {
    if (!this.enabled) return;
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  push(row: RequestLogRow): void {
    this.rows.push(row);
    if (this.rows.length > MAX_BUFFERED) {
      this.dropped += this.rows.length - MAX_BUFFERED;
      this.rows.splice(0, this.rows.length - MAX_BUFFERED);
    }
  }

  /** Writes what is buffered; a call while one runs waits for it and then writes what came since. */
  async flush(): Promise<void> {
    if (this.flushing) await this.flushing;
    if (!this.rows.length) return;
    const taken = this.rows;
    this.rows = [];
    this.flushing = (async () => {
      for (let i = 0; i < taken.length; i += BATCH) {
        const batch = taken.slice(i, i + BATCH);
        try {
          await this.repo.insertBatch(batch);
        } catch (err) {
          this.rows.unshift(...taken.slice(i));
          this.logger.warn(
            { err: (err as Error).message, rows: taken.length - i },
            'request log flush failed',
          );
          break;
        }
      }
      if (this.dropped) {
        this.logger.warn({ dropped: this.dropped }, 'request log rows dropped while the database was behind');
        this.dropped = 0;
      }
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }
}
