import { Module } from '@nestjs/common';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { EvaluationModule } from '../evaluation.module';
import { EvaluateSessionProcessor } from './evaluate-session.processor';

@Module({ imports: [EvaluationModule, ConversationsModule], providers: [EvaluateSessionProcessor] })
export class EvaluationJobsModule {}
