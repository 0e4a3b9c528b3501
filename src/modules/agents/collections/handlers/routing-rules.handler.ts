import { Injectable } from '@nestjs/common';
import { ReplaceRoutingRulesDto, RoutingRuleDto, UpdateRoutingRuleDto } from '../../dto/collections.dto';
import { AgentsRepository } from '../../agents.repository';
import { RoutingRulesRepository } from '../agent-collections.repository';
import type { RoutingRule } from '../agent-rules.entity';
import { CollectionHandler, CollectionRoute, FieldSpec, nextNumber } from '../collection-handler';
import { destinationAgentField, destinationFields } from './destination-agent';

export const ROUTING_RULES_ROUTE: CollectionRoute = {
  name: 'routing_rules',
  path: 'routing-rules',
  itemParam: 'ruleUuid',
  method: 'RoutingRule',
  one: 'a routing rule',
  all: 'all routing rules',
  item: 'one routing rule',
  rule: 'Without priority the rule goes last (max + 1). destination_agent_uuid must be an agent of this workspace.',
  errors: ['INVALID_UUID'],
  body: { create: RoutingRuleDto, replace: ReplaceRoutingRulesDto, update: UpdateRoutingRuleDto },
};

@Injectable()
export class RoutingRulesHandler implements CollectionHandler<RoutingRule> {
  readonly label = 'Routing rule';
  readonly route = ROUTING_RULES_ROUTE;
  readonly scope = {};
  readonly required = ['detection_mode', 'phrases', 'transfer_config', 'priority', 'is_active'];
  readonly fields: Record<string, FieldSpec<RoutingRule>>;
  readonly defaults = {
    detectionMode: 'intent',
    phrases: () => [],
    transferConfig: () => ({}),
    isActive: true,
    departmentName: null,
    triggerKeyword: null,
    aiPrompt: null,
    voiceResponse: null,
    voiceOnError: null,
    voiceOnSuccess: null,
    destinationType: null,
    destination: null,
    destinationAgentId: null,
    transferType: null,
    priority: (ctx) => nextNumber(ctx, this.repo, 'priority', {}),
  } satisfies CollectionHandler<RoutingRule>['defaults'];

  constructor(
    readonly repo: RoutingRulesRepository,
    agents: AgentsRepository,
  ) {
    this.fields = {
      department_name: 'departmentName',
      trigger_keyword: 'triggerKeyword',
      detection_mode: 'detectionMode',
      phrases: 'phrases',
      ai_prompt: 'aiPrompt',
      voice_response: 'voiceResponse',
      voice_on_error: 'voiceOnError',
      voice_on_success: 'voiceOnSuccess',
      ...destinationFields,
      destination_agent_uuid: destinationAgentField(agents),
      transfer_type: 'transferType',
      transfer_config: 'transferConfig',
      is_active: 'isActive',
      priority: 'priority',
    };
  }
}
