import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LlmModule } from '@/providers/llm/llm.module';
import { IntentAction } from './intent-action.entity';
import { IntentActionsRepository } from './intent-actions.repository';
import { ToolCatalog } from './tool-catalog.service';

/**
 * The agent's intents as functions for the model, with their stored actions: the intents runtime's tools, and the
 * rule test's dry run (the agents module's TOOL_DRY_RUN port, bound to ToolCatalog by PortBindingsModule).
 */
@Module({
  imports: [TypeOrmModule.forFeature([IntentAction]), LlmModule],
  providers: [IntentActionsRepository, ToolCatalog],
  exports: [IntentActionsRepository, ToolCatalog],
})
export class IntentToolsModule {}
