import 'reflect-metadata';
import { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import express, { NextFunction, Request, Response } from 'express';
import * as fs from 'node:fs';
import { Logger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AppModule } from '@/app.module';
import { MediaStreamServer } from '@/modules/voice/media/media-stream.server';
import { WebCallServer } from '@/modules/web-calls/web-call.server';
import { AppConfig } from '@/config/app.config';
import { resolveEncryptionKey } from '@/common/crypto/encryption-key';
import { buildOpenApiDocument, docsCorsOptions } from '@/common/http/openapi-document';
import { BODY_PARSE_ERROR, BodyRequest } from '@/common/http/body.guard';
import { hookBodyParser } from '@/common/http/provider-hook';
import { jsonBodyParser, repairPathEncoding } from '@/common/http/request-limits';
import { HTTPS_REQUIRED_BODY, listen, RunningServer } from '@/common/http/server';
import { loadOrCreateTlsMaterial, TlsMaterial } from '@/common/http/tls';
import { assertRedisReachable } from '@/common/redis/redis-check';
import { mountQueueDashboard } from '@/common/queue/queue-dashboard';
import { stopTelemetry } from '@/common/telemetry/start';
import { resumeRequestContext } from '@/common/telemetry/request-context';
import { tracingEnabled } from '@/common/telemetry/telemetry';
import { urlPolicy } from '@/common/validation/validators';
import { migrate } from '@/database/data-source';

/**
 * Storage, the encryption key, Redis reachable (unless `redis: false`), and the database (created and migrated);
 * each step that did something says so through `log`. Returns the completed config.
 */
export async function prepareRuntime(
  config: AppConfig,
  log: (line: string) => void = () => undefined,
  options: { redis?: boolean } = {},
): Promise<AppConfig> {
  fs.mkdirSync(config.storageDir, { recursive: true });
  const ready = resolveEncryptionKey(config, log);
  urlPolicy.allowHttp = ready.network.allowPrivateTargets;
  if (options.redis !== false) await assertRedisReachable(ready.redis.url);
  await migrate(ready.database.url, [], log);
  return ready;
}

/** The Nest application on its Express instance: body parsing, the proxy rule, Swagger; not listening yet. */
export async function createHttpApp(
  config: AppConfig,
  workers: boolean,
  logDestination?: DestinationStream,
): Promise<INestApplication> {
  const server = express();
  server.disable('x-powered-by');
  server.set('etag', false); // API answers are not cached by validators; hashing every body costs CPU
  if (config.trustProxy) {
    server.set('trust proxy', true);
    // Behind a TLS-terminating proxy the scheme comes from X-Forwarded-Proto; probes of /health may be plain.
    server.use((req: Request, res: Response, next: NextFunction) => {
      if (req.path === '/health' || req.path === '/health/ready') return next();
      const proto = String(req.headers['x-forwarded-proto'] ?? '')
        .split(',')[0]
        .trim()
        .toLowerCase();
      if (proto === 'https') return next();
      res.status(403).type('application/json').send(HTTPS_REQUIRED_BODY);
    });
  }
  server.use(repairPathEncoding);
  // Provider hooks keep their raw bytes (signed by the provider); other bodies go to the JSON parser.
  server.use(hookBodyParser);
  // Parse errors are recorded, not answered: the BodyGuard raises them after the token and rate checks.
  server.use(jsonBodyParser((req, problem) => ((req as BodyRequest)[BODY_PARSE_ERROR] = problem)));
  // Provider hooks post forms (Twilio): parsed on their prefix only.
  server.use('/hooks', express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 200 }));
  // With tracing on: a request that went round the HTTP instrumentation gets its context back after the parsers.
  if (tracingEnabled()) server.use(resumeRequestContext);

  const app = await NestFactory.create(
    AppModule.register({ config, workers, logDestination }),
    new ExpressAdapter(server),
    {
      bufferLogs: true,
      bodyParser: false,
    },
  );
  app.useLogger(app.get(Logger));
  app.enableCors(docsCorsOptions(config));
  mountQueueDashboard(app, config);
  const document = buildOpenApiDocument(app, config);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
  });
  await app.init();
  return app;
}

export interface StartedApi {
  app: INestApplication;
  server: RunningServer;
  /** Graceful stop: drain HTTP until the deadline, then close queues (waiting for active jobs), DB and Redis. */
  stop(): Promise<void>;
}

export async function startApi(
  config: AppConfig,
  options: { host?: string; tls?: TlsMaterial; logDestination?: DestinationStream } = {},
): Promise<StartedApi> {
  const app = await createHttpApp(config, config.runWorkers, options.logDestination);
  const logger = app.get(Logger);
  const tls = config.trustProxy
    ? undefined
    : (options.tls ?? (await loadOrCreateTlsMaterial(config, (m) => logger.log(m, 'Bootstrap'))));
  const media = app.get(MediaStreamServer, { strict: false });
  const web = app.get(WebCallServer, { strict: false });
  const server = await listen(app.getHttpAdapter().getInstance(), {
    port: config.port,
    host: options.host,
    tls,
    // WebSocket upgrades: web call sockets, else Twilio media streams (which refuse any other path).
    upgrade: (req, socket, head) => (web.handles(req) ? web : media).handleUpgrade(req, socket, head),
  });
  return {
    app,
    server,
    stop: async () => {
      await server.close(config.shutdownTimeoutMs);
      await app.close();
    },
  };
}

/** A process without the API: the same modules with every processor (its health listener is separate). */
export async function startWorker(config: AppConfig): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(AppModule.register({ config, workers: true }), {
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  await app.init();
  return app;
}

/**
 * Runs `stop` on SIGTERM/SIGINT once, says the process stopped, exports the spans left (tracing on), and exits; a
 * second signal or the deadline forces the exit (jobs still running then are taken up again by another worker once
 * their lock expires).
 */
export function onShutdown(stop: () => Promise<void>, deadlineMs: number, log: (msg: string) => void): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    const started = Date.now();
    log(`${signal} received: draining requests and jobs (deadline ${deadlineMs} ms)`);
    setTimeout(() => {
      log(`stopped: deadline passed, exiting with work unfinished`);
      process.exit(1);
    }, deadlineMs + 5000).unref();
    stop().then(
      async () => {
        log(`stopped after ${Date.now() - started} ms`);
        await stopTelemetry();
        process.exit(0);
      },
      async (err: Error) => {
        log(`stopped with an error: ${err.message}`);
        await stopTelemetry();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}
