import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import {
  IntentDto,
  IntentParameterDto,
  IntentWebhookDto,
  ReplaceIntentsDto,
  UpdateIntentDto,
} from '../../dto/collections.dto';
import { AgentIntentsRepository, AgentProceduresRepository } from '../agent-collections.repository';
import type { AgentIntent } from '../agent-intent.entity';
import type { CollectionHandler, CollectionRoute, FieldSpec, WriteContext } from '../collection-handler';

/** A key made of the name: lowercase ASCII words joined by underscores. */
export function keyFromName(name: string): string {
  const key = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 90);
  return key || 'intent';
}

export const INTENTS_ROUTE: CollectionRoute = {
  name: 'intents',
  path: 'intents',
  itemParam: 'itemUuid',
  method: 'Intent',
  one: 'an intent',
  all: 'all intents',
  item: 'one intent',
  rule: 'The key is generated from the name when absent and is unique per agent (409 on a duplicate).',
  errors: ['CONFLICT'],
  body: { create: IntentDto, replace: ReplaceIntentsDto, update: UpdateIntentDto },
};

@Injectable()
export class IntentsHandler implements CollectionHandler<AgentIntent> {
  readonly label = 'Intent';
  readonly route = INTENTS_ROUTE;
  readonly scope = {};
  readonly required = [
    'name',
    'key',
    'confidence_threshold',
    'is_system',
    'intent_llm_handle_by_response',
    'parameters',
  ];
  readonly fields: Record<string, FieldSpec<AgentIntent>> = {
    name: 'name',
    description: 'description',
    recommendation_actions: 'recommendationActions',
    confidence_threshold: 'confidenceThreshold',
    is_system: 'isSystem',
    intent_llm_handle_by_response: 'intentLlmHandleByResponse',
    webhook: {
      to: 'webhook',
      convert: (w: IntentWebhookDto | null) => (w ? { url: w.url, auth_token: w.auth_token ?? null } : null),
    },
    parameters: {
      to: 'parameters',
      convert: (ps: IntentParameterDto[]) =>
        ps.map((p) => ({
          key: p.key,
          default: p.default ?? null,
          type: p.type ?? 'string',
          required: p.required ?? false,
        })),
    },
  };
  readonly defaults = {
    description: null,
    recommendationActions: null,
    confidenceThreshold: 0.5,
    isSystem: false,
    intentLlmHandleByResponse: false,
    webhook: null,
    parameters: () => [],
  };

  constructor(
    readonly repo: AgentIntentsRepository,
    private readonly procedures: AgentProceduresRepository,
  ) {}

  /** The key is unique per agent: a sent one must be free, a missing one is made from the name. */
  finish(ctx: WriteContext, row: AgentIntent, dto: Partial<IntentDto>, creating: boolean): void {
    const others = new Set((ctx.siblings as AgentIntent[]).filter((s) => s.id !== row.id).map((s) => s.key));
    if (dto.key !== undefined) {
      if (others.has(dto.key))
        throw AppException.conflict(`Another intent of this agent already has the key ${dto.key}`);
      row.key = dto.key;
    } else if (creating) {
      const base = keyFromName(row.name);
      let key = base;
      for (let n = 2; others.has(key); n++) key = `${base}_${n}`;
      row.key = key;
    }
  }

  /** Steps that called a removed intent become plain conversation steps. */
  removed(ctx: WriteContext, ids: string[]): Promise<void> {
    return this.procedures.detachIntents(ctx.workspaceId, ctx.agentId, ids, ctx.m);
  }
}
