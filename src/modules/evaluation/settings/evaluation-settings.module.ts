import { Module } from '@nestjs/common';
import { AgentsModule } from '@/modules/agents/agents.module';
import { EvaluationSettingsController } from './evaluation-settings.controller';
import { EvaluationSettingsRepository } from './evaluation-settings.repository';
import { EvaluationSettingsService } from './evaluation-settings.service';

/** Evaluation settings apart from the evaluation runs, so the conversation runtime can read them without a cycle. */
@Module({
  imports: [AgentsModule],
  controllers: [EvaluationSettingsController],
  providers: [EvaluationSettingsRepository, EvaluationSettingsService],
  exports: [EvaluationSettingsService],
})
export class EvaluationSettingsModule {}
