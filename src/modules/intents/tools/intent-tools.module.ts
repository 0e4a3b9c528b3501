import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LlmModule } from '@/providers/llm/llm.module';
import { IntentAction } from './intent-action.entity';
import { IntentActionsRepository } from './intent-actions.repository';
import { ToolCatalog } from './tool-catalog.service';

/**
 * The agent's intents as functions for the model, with their stored actions. Depends on nothing but the language
 * model, so the agents module (the rule check's dry run) and the intents runtime both use it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([IntentAction]), LlmModule],
  providers: [IntentActionsRepository, ToolCatalog],
  exports: [IntentActionsRepository, ToolCatalog],
})
export class IntentToolsModule {}
