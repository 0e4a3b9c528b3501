import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import {
  ProcedureDto,
  ProcedureStepDto,
  ReplaceProceduresDto,
  UpdateProcedureDto,
} from '../../dto/collections.dto';
import { AgentIntentsRepository, AgentProceduresRepository } from '../agent-collections.repository';
import type { AgentProcedure } from '../agent-procedure.entity';
import type { CollectionHandler, CollectionRoute, FieldSpec, WriteContext } from '../collection-handler';

export const PROCEDURES_ROUTE: CollectionRoute = {
  name: 'procedures',
  path: 'procedures',
  itemParam: 'itemUuid',
  method: 'Procedure',
  one: 'a procedure',
  all: 'all procedures',
  item: 'one procedure',
  rule: 'Every step intent_uuid must name an intent of this agent (422 naming the field).',
  errors: ['INVALID_UUID'],
  body: { create: ProcedureDto, replace: ReplaceProceduresDto, update: UpdateProcedureDto },
};

@Injectable()
export class ProceduresHandler implements CollectionHandler<AgentProcedure> {
  readonly label = 'Procedure';
  readonly route = PROCEDURES_ROUTE;
  readonly scope = {};
  readonly required = ['name', 'steps'];
  readonly fields: Record<string, FieldSpec<AgentProcedure>> = {
    name: 'name',
    description: 'description',
    steps: { to: 'steps', convert: (steps: ProcedureStepDto[], ctx) => this.steps(ctx, steps) },
  };
  readonly defaults = { description: null, steps: () => [] };

  constructor(
    readonly repo: AgentProceduresRepository,
    private readonly intents: AgentIntentsRepository,
  ) {}

  /** Every step that calls an intent must name one of this agent's; steps are kept sorted by order. */
  private async steps(ctx: WriteContext, steps: ProcedureStepDto[]): Promise<AgentProcedure['steps']> {
    const ids = [...new Set(steps.map((s) => s.intent_uuid).filter((x): x is string => !!x))];
    const known = new Set(
      (
        await this.intents.find(
          ctx.workspaceId,
          { where: ids.map((id) => ({ id, agentId: ctx.agentId })) },
          ctx.m,
        )
      ).map((i) => i.id),
    );
    steps.forEach((s, i) => {
      if (s.intent_uuid && !known.has(s.intent_uuid.toLowerCase()))
        throw AppException.invalid(
          `${ctx.prefix}steps.${i}.intent_uuid`,
          `${ctx.prefix}steps.${i}.intent_uuid does not name an intent of this agent`,
        );
    });
    return steps
      .map((s) => ({
        order: s.order,
        description: s.description ?? null,
        intent_uuid: s.intent_uuid?.toLowerCase() ?? null,
      }))
      .sort((a, b) => a.order - b.order);
  }
}
