import { Module } from '@nestjs/common';
import { MessagingModule } from '../messaging.module';
import { MessagingProcessor } from './messaging.processor';

/** The messaging processors, loaded only where workers run. */
@Module({ imports: [MessagingModule], providers: [MessagingProcessor] })
export class MessagingJobsModule {}
