import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations.module';
import { SessionTimeoutProcessor } from './session-timeout.processor';

@Module({ imports: [ConversationsModule], providers: [SessionTimeoutProcessor] })
export class ConversationsJobsModule {}
