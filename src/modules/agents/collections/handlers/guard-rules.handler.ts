import { Injectable } from '@nestjs/common';
import { GuardRuleDto, ReplaceGuardRulesDto, UpdateGuardRuleDto } from '../../dto/collections.dto';
import { AgentsRepository } from '../../agents.repository';
import { GuardRulesRepository } from '../agent-collections.repository';
import type { GuardRule } from '../agent-rules.entity';
import type { CollectionHandler, CollectionRoute, FieldSpec } from '../collection-handler';
import { destinationAgentField, destinationFields } from './destination-agent';

export const GUARD_RULES_ROUTE: CollectionRoute = {
  name: 'guard_rules',
  path: 'guard-rules',
  itemParam: 'ruleUuid',
  method: 'GuardRule',
  one: 'a guard rule',
  all: 'all guard rules',
  item: 'one guard rule',
  rule: 'Guards are checked in insertion order before routing; the first match wins.',
  errors: ['INVALID_UUID'],
  body: { create: GuardRuleDto, replace: ReplaceGuardRulesDto, update: UpdateGuardRuleDto },
};

@Injectable()
export class GuardRulesHandler implements CollectionHandler<GuardRule> {
  readonly label = 'Guard rule';
  readonly route = GUARD_RULES_ROUTE;
  readonly scope = {};
  readonly required = ['then_action', 'example_phrases', 'selected_channels', 'is_active', 'is_default'];
  readonly fields: Record<string, FieldSpec<GuardRule>>;
  readonly defaults = {
    thenAction: 'forward',
    examplePhrases: () => [],
    selectedChannels: () => [],
    isActive: true,
    isDefault: false,
    name: null,
    whenCondition: null,
    sayBeforeForwarding: null,
    sayBeforeEnd: null,
    destinationType: null,
    destination: null,
    destinationAgentId: null,
  };

  constructor(
    readonly repo: GuardRulesRepository,
    agents: AgentsRepository,
  ) {
    this.fields = {
      name: 'name',
      when_condition: 'whenCondition',
      example_phrases: 'examplePhrases',
      then_action: 'thenAction',
      selected_channels: 'selectedChannels',
      say_before_forwarding: 'sayBeforeForwarding',
      say_before_end: 'sayBeforeEnd',
      ...destinationFields,
      destination_agent_uuid: destinationAgentField(agents),
      is_active: 'isActive',
      is_default: 'isDefault',
    };
  }
}
