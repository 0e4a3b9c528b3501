import { DynamicModule, MiddlewareConsumer, Module, NestModule, RequestMethod, Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DestinationStream } from 'pino';
import { AppConfig } from '@/config/app.config';
import { ConfigModule } from '@/config/config.module';
import { DatabaseSessionModule, databaseSessionName } from '@/database/session-name';
import { dataSourceOptions } from '@/database/data-source';
import { ApiTokenGuard } from '@/common/auth/api-token.guard';
import { InternalAdminGuard } from '@/common/auth/internal-admin.guard';
import { TenantMiddleware } from '@/common/auth/tenant.middleware';
import { BodyGuard } from '@/common/http/body.guard';
import { EnvelopeInterceptor } from '@/common/http/envelope';
import { AllExceptionsFilter } from '@/common/http/exceptions.filter';
import { RateLimitGuard, RateLimiter } from '@/common/http/rate-limit.guard';
import { createValidationPipe } from '@/common/http/validation';
import { LoggingModule, RequestLogMiddleware } from '@/common/logging/logging.module';
import { MetricsModule } from '@/common/metrics/metrics.module';
import { QueueModule } from '@/common/queue/queue.module';
import { RedisModule } from '@/common/redis/redis.module';
import { PersistenceModule } from '@/common/persistence/persistence.module';
import { AgentsModule } from '@/modules/agents/agents.module';
import { AnalyticsModule } from '@/modules/analytics/analytics.module';
import { BlacklistModule } from '@/modules/blacklist/blacklist.module';
import { CallsModule } from '@/modules/calls/calls.module';
import { CallsJobsModule } from '@/modules/calls/runtime/jobs/calls-jobs.module';
import { VoiceJobsModule } from '@/modules/voice/jobs/voice-jobs.module';
import { VoiceModule } from '@/modules/voice/voice.module';
import { WebCallsModule } from '@/modules/web-calls/web-calls.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { ConversationsJobsModule } from '@/modules/conversations/jobs/conversations-jobs.module';
import { EvaluationJobsModule } from '@/modules/evaluation/jobs/evaluation-jobs.module';
import { EvaluationModule } from '@/modules/evaluation/evaluation.module';
import { EventsModule } from '@/modules/events/events.module';
import { EventsJobsModule } from '@/modules/events/jobs/events-jobs.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { SchedulingModule } from '@/modules/scheduling/scheduling.module';
import { HealthModule } from '@/modules/health/health.module';
import { IdempotencyInterceptor } from '@/modules/idempotency/idempotency.interceptor';
import { IdempotencyModule } from '@/modules/idempotency/idempotency.module';
import { IntentsModule } from '@/modules/intents/intents.module';
import { IdempotencyJobsModule } from '@/modules/idempotency/jobs/idempotency-jobs.module';
import { KnowledgeJobsModule } from '@/modules/knowledge/jobs/knowledge-jobs.module';
import { KnowledgeModule } from '@/modules/knowledge/knowledge.module';
import { LanguagesModule } from '@/modules/languages/languages.controller';
import { LogsModule } from '@/modules/logs/logs.module';
import { FlowsModule } from '@/modules/flows/flows.module';
import { FlowsJobsModule } from '@/modules/flows/jobs/flows-jobs.module';
import { MessagingModule } from '@/modules/messaging/messaging.module';
import { MessagingJobsModule } from '@/modules/messaging/jobs/messaging-jobs.module';
import { LogsJobsModule } from '@/modules/logs/jobs/logs-jobs.module';
import { ApiRequestLogMiddleware } from '@/modules/logs/request-log.middleware';
import { OutboundJobsModule } from '@/modules/outbound/engine/jobs/outbound-jobs.module';
import { OutboundModule } from '@/modules/outbound/outbound.module';
import { PhoneNumbersModule } from '@/modules/phone-numbers/phone-numbers.module';
import { RuntimeModule } from '@/modules/runtime/runtime.module';
import { PortBindingsModule } from '@/modules/port-bindings.module';
import { SipModule } from '@/modules/sip/sip.module';
import { TranscriptionJobsModule } from '@/modules/transcription/jobs/transcription-jobs.module';
import { TranscriptionsModule } from '@/modules/transcription/transcription.module';
import { WorkspacesModule } from '@/modules/workspaces/workspaces.module';

/** Domain modules: controllers, services, repositories. */
const DOMAIN_MODULES: Type[] = [
  // First: routes are registered in module order, so `/phone-numbers/trunks` (SIP) comes before the phone
  // numbers module's `/phone-numbers/{uuid}`.
  SipModule,
  HealthModule,
  WorkspacesModule,
  IdempotencyModule,
  AgentsModule,
  EventsModule,
  ConversationsModule,
  RuntimeModule,
  IntentsModule,
  EvaluationModule,
  ContactsModule,
  SchedulingModule,
  KnowledgeModule,
  AnalyticsModule,
  PhoneNumbersModule,
  BlacklistModule,
  CallsModule,
  VoiceModule,
  WebCallsModule,
  LogsModule,
  FlowsModule,
  MessagingModule,
  TranscriptionsModule,
  LanguagesModule,
  OutboundModule,
];

/** Bull processors, loaded only in processes that run workers (RUN_WORKERS or `npm run start:worker`). */
const WORKER_MODULES: Type[] = [
  IdempotencyJobsModule,
  KnowledgeJobsModule,
  ConversationsJobsModule,
  EvaluationJobsModule,
  EventsJobsModule,
  CallsJobsModule,
  FlowsJobsModule,
  MessagingJobsModule,
  TranscriptionJobsModule,
  LogsJobsModule,
  VoiceJobsModule,
  OutboundJobsModule,
];

export interface AppModuleOptions {
  config: AppConfig;
  workers: boolean;
  /** Where log lines go instead of standard output. */
  logDestination?: DestinationStream;
}

@Module({})
export class AppModule implements NestModule {
  static register({ config, workers, logDestination }: AppModuleOptions): DynamicModule {
    // A process running the workers dispatches the outbox events its own transactions write (see OutboxListener).
    const sessionName = databaseSessionName(workers);
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config, logDestination),
        DatabaseSessionModule.forRoot(sessionName),
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.database.url, {
            applicationName: sessionName,
            poolMin: config.database.poolMin,
          }),
          autoLoadEntities: true,
        }),
        RedisModule,
        PersistenceModule,
        MetricsModule,
        QueueModule,
        ...DOMAIN_MODULES,
        // Binds the ports of the modules above (a lower module's port to a higher module's implementation); refuses
        // to start while one is unbound.
        PortBindingsModule.forRoot(),
        ...(workers ? WORKER_MODULES : []),
      ],
      providers: [
        RateLimiter,
        // Guards run in this order: admin key or token and scope, then rate limit, then body problems (contract's order).
        { provide: APP_GUARD, useClass: InternalAdminGuard },
        { provide: APP_GUARD, useClass: ApiTokenGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useClass: BodyGuard },
        // The idempotency interceptor wraps the envelope, so it stores exactly what the client receives.
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    // The request line (and its id) first, so that every answer has both, a refused tenant's too.
    consumer.apply(RequestLogMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
    consumer.apply(TenantMiddleware).forRoutes({ path: 'api/{*path}', method: RequestMethod.ALL });
    // The request log (off the request path): a row per answered tenant request, written in batches.
    consumer.apply(ApiRequestLogMiddleware).forRoutes({ path: 'api/{*path}', method: RequestMethod.ALL });
  }
}
