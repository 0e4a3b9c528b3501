import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBoxModule } from '@/common/crypto/secret-box';
import { LlmModule } from '@/providers/llm/llm.module';
import { PhoneNumbersModule } from '@/modules/phone-numbers/phone-numbers.module';
import { Agent } from './agent.entity';
import { AgentChannelsController } from './agent-channels.controller';
import { AgentSettingsController } from './agent-settings.controller';
import { AgentViewsRepository } from './agent-views.repository';
import { AgentsController } from './agents.controller';
import { AgentsRepository } from './agents.repository';
import { AgentsService } from './agents.service';
import { EvaluationSettingsController } from './evaluation-settings.controller';
import { AgentIntent } from './collections/agent-intent.entity';
import { AgentNote } from './collections/agent-note.entity';
import { AgentProcedure } from './collections/agent-procedure.entity';
import { GuardRule, RoutingRule } from './collections/agent-rules.entity';
import { AgentTraining } from './collections/agent-training.entity';
import { AgentWebhook } from './collections/agent-webhook.entity';
import { AgentWebhookSecretsController } from './collections/agent-webhooks.controller';
import { AgentWebhooksRepository } from './collections/agent-webhooks.repository';
import { AgentWebhooksService } from './collections/agent-webhooks.service';
import { AgentCollectionsController } from './collections/agent-collections.controller';
import {
  AgentIntentsRepository,
  AgentNotesRepository,
  AgentProceduresRepository,
  AgentTrainingRepository,
  GuardRulesRepository,
  RoutingRulesRepository,
} from './collections/agent-collections.repository';
import { AgentCollectionsService } from './collections/agent-collections.service';
import { AgentWriteLock } from './collections/agent-write-lock';
import { collectionHandlerProviders } from './collections/handlers';
import { FlowCatalogController } from './flow-catalog.controller';
import { RuleEngineService } from './rules/rule-engine.service';
import { EvaluationSettingsRepository } from './settings/evaluation-settings.repository';
import { EvaluationSettingsService } from './settings/evaluation-settings.service';
import { MemorizeSettingsService } from './settings/memorize-settings.service';
import { SettingsRepository } from './settings/settings.repository';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      Agent,
      AgentNote,
      AgentTraining,
      AgentProcedure,
      AgentIntent,
      RoutingRule,
      GuardRule,
      AgentWebhook,
    ]),
    SecretBoxModule,
    LlmModule,
    PhoneNumbersModule,
  ],
  controllers: [
    AgentsController,
    AgentCollectionsController,
    AgentChannelsController,
    AgentSettingsController,
    EvaluationSettingsController,
    FlowCatalogController,
    AgentWebhookSecretsController,
  ],
  providers: [
    AgentsRepository,
    AgentWriteLock,
    AgentViewsRepository,
    AgentsService,
    AgentNotesRepository,
    AgentTrainingRepository,
    AgentProceduresRepository,
    AgentIntentsRepository,
    RoutingRulesRepository,
    GuardRulesRepository,
    AgentWebhooksRepository,
    AgentWebhooksService,
    ...collectionHandlerProviders,
    AgentCollectionsService,
    RuleEngineService,
    SettingsRepository,
    MemorizeSettingsService,
    EvaluationSettingsRepository,
    EvaluationSettingsService,
  ],
  exports: [
    AgentsService,
    RuleEngineService,
    MemorizeSettingsService,
    EvaluationSettingsService,
    // Bound to the events module's AGENT_WEBHOOK_TARGETS port by PortBindingsModule.
    AgentWebhooksService,
  ],
})
export class AgentsModule {}
