import { BullModule } from '@nestjs/bull';
import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { JobLifecycle } from './job-lifecycle';
import { DEFAULT_JOB_OPTIONS, QUEUES } from './queues';

const registered = BullModule.registerQueue(...Object.values(QUEUES).map((name) => ({ name })));

/**
 * Bull wired once: one Redis prefix per deployment, every queue registered here and injectable everywhere, and the
 * lifecycle logs and metrics of each queue's jobs.
 */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        url: config.redis.url,
        prefix: `${config.redis.prefix}:bull`,
        defaultJobOptions: DEFAULT_JOB_OPTIONS,
      }),
    }),
    registered,
  ],
  providers: [JobLifecycle],
  exports: [registered],
})
export class QueueModule {}
