import type { INestApplicationContext } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { adminKeyMiddleware } from '@/common/auth/admin-key';
import { listen, RunningServer } from '@/common/http/server';
import { Metrics } from '@/common/metrics/metrics';
import type { AppConfig } from '@/config/app.config';
import { HealthChecks } from './health-checks';

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));

/**
 * The worker process's own health, in plain HTTP on WORKER_HEALTH_PORT (a port inside the deployment, never
 * published): `GET /health` (alive), `GET /health/ready` (PostgreSQL and Redis, 503 while draining), and
 * `GET /metrics` behind the admin key, where the worker's job outcomes are counted.
 */
export function serveWorkerHealth(
  app: INestApplicationContext,
  config: AppConfig,
  options: { port: number; host?: string },
): Promise<RunningServer> {
  const checks = app.get(HealthChecks);
  const metrics = app.get(Metrics);
  const adminOnly = adminKeyMiddleware(config.auth.adminApiKey);
  return listen(
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET') return json(res, 405, { status: 'method not allowed' });
      if (path === '/health') return json(res, 200, { status: 'ok' });
      if (path === '/health/ready')
        return void checks.ready().then((r) => json(res, r.status === 'ok' ? 200 : 503, r));
      if (path === '/metrics')
        return adminOnly(
          req,
          res,
          () =>
            void metrics
              .scrape()
              .then((text) => res.writeHead(200, { 'Content-Type': metrics.contentType }).end(text)),
        );
      json(res, 404, { status: 'not found' });
    },
    { port: options.port, host: options.host },
  );
}
