import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { APP_CONFIG, AppConfig } from '@/config/app.config';

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fields that never reach a log line, wherever they appear. */
export const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.secret',
  '*.secret_key',
  '*.token',
  '*.password',
  '*.auth_token',
  '*.apiKey',
];

/**
 * Structured JSON logs (pino), one line a request, with a request id accepted from X-Request-Id or generated.
 * Lines go to standard output, or to `destination` when one is given (tests read what was logged).
 */
@Module({})
export class LoggingModule {
  static forRoot(destination?: DestinationStream): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => {
            const options = {
              level: config.logLevel,
              redact: { paths: REDACT, censor: '[redacted]' },
              genReqId: (req: IncomingMessage, res: ServerResponse) => {
                const given = req.headers['x-request-id'];
                const id = typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
                res.setHeader('X-Request-Id', id);
                return id;
              },
              customProps: (req: IncomingMessage & { workspace?: { slug: string } }) => ({
                workspace: req.workspace?.slug,
              }),
              serializers: {
                req: (req: { id: string; method: string; url: string }) => ({
                  id: req.id,
                  method: req.method,
                  url: req.url,
                }),
              },
              autoLogging: { ignore: (req: IncomingMessage) => req.url === '/health' },
            };
            return { pinoHttp: destination ? [options, destination] : options };
          },
        }),
      ],
    };
  }
}
