import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@/config/app.config';

/**
 * Opens the pool's kept connections (`DATABASE_POOL_MIN`) as the process starts, so its first burst of traffic does
 * not wait for PostgreSQL to start a backend per connection; the pool keeps them open (its `min`) while idle.
 */
@Injectable()
export class DatabasePoolWarmup implements OnApplicationBootstrap {
  private readonly logger = new Logger(DatabasePoolWarmup.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const pool = (this.dataSource.driver as unknown as { master?: Pool }).master;
    const wanted = this.config.database.poolMin;
    if (!pool || wanted <= 0) return;
    const began = Date.now();
    const clients: PoolClient[] = [];
    try {
      await Promise.all(
        Array.from({ length: wanted }, async () => {
          const client = await pool.connect();
          clients.push(client);
          await client.query('SELECT 1');
        }),
      );
      this.logger.log({ connections: clients.length, ms: Date.now() - began }, 'database pool warmed');
    } catch (err) {
      // Not fatal: the pool opens connections on demand as before.
      this.logger.warn(
        { err: (err as Error).message, opened: clients.length },
        'database pool warm-up failed',
      );
    } finally {
      for (const c of clients) c.release();
    }
  }
}
