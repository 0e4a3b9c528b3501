import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IntentAction } from './intent-action.entity';
import { IntentActionsRepository } from './intent-actions.repository';

/**
 * The intents' stored actions (`intent_actions`). The runtime module's tool catalog reads the deployed ones through
 * its INTENT_ACTIONS port (the intents module's TurnIntentActions).
 */
@Module({
  imports: [TypeOrmModule.forFeature([IntentAction])],
  providers: [IntentActionsRepository],
  exports: [IntentActionsRepository],
})
export class IntentToolsModule {}
