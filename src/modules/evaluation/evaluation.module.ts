import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { EventsModule } from '@/modules/events/events.module';
import { UsageModule } from '@/modules/usage/usage.module';
import { LlmModule } from '@/providers/llm/llm.module';
import { EvaluationController } from './evaluation.controller';
import { EvaluationRecord } from './evaluation-record.entity';
import { EvaluationRepository } from './evaluation.repository';
import { EvaluationService } from './evaluation.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([EvaluationRecord]),
    ConversationsModule,
    EventsModule,
    LlmModule,
    UsageModule,
  ],
  controllers: [EvaluationController],
  providers: [EvaluationRepository, EvaluationService],
  exports: [EvaluationService],
})
export class EvaluationModule {}
