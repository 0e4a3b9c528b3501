import { createBullBoard } from '@bull-board/api';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { getQueueToken } from '@nestjs/bull';
import type { INestApplication } from '@nestjs/common';
import type { Express } from 'express';
import type { Queue } from 'bull';
import { adminKeyMiddleware } from '@/common/auth/admin-key';
import type { AppConfig } from '@/config/app.config';
import { QUEUES } from './queues';

export const QUEUE_DASHBOARD_PATH = '/internal/queues';

/**
 * Bull Board for every queue of the table under /internal/queues, behind the admin key (`Bearer`, or a browser's
 * Basic prompt with the key as password). Mounted on Express before Nest's routes; absent (404) without a key.
 */
export function mountQueueDashboard(app: INestApplication, config: AppConfig): void {
  const board = new ExpressAdapter().setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: Object.values(QUEUES).map(
      (name) => new BullAdapter(app.get<Queue>(getQueueToken(name), { strict: false })),
    ),
    serverAdapter: board,
  });
  (app.getHttpAdapter().getInstance() as Express).use(
    QUEUE_DASHBOARD_PATH,
    adminKeyMiddleware(config.auth.adminApiKey, { basicRealm: 'queues' }),
    board.getRouter() as Express,
  );
}
