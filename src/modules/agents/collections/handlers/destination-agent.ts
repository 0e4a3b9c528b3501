import { AppException } from '@/common/errors/app.exception';
import { AgentsRepository } from '../../agents.repository';
import type { FieldSpec, WriteContext } from '../collection-handler';

/** `destination_agent_uuid` → `destinationAgentId`, which must name an agent of this workspace (422 otherwise). */
export function destinationAgentField<E>(agents: AgentsRepository): FieldSpec<E> {
  return {
    to: 'destinationAgentId' as keyof E,
    convert: async (id: string | null, ctx: WriteContext) => {
      if (!id) return null;
      const field = `${ctx.prefix}destination_agent_uuid`;
      if (!(await agents.findOne(ctx.workspaceId, { id: id.toLowerCase() }, {}, ctx.m)))
        throw AppException.invalid(field, `${field} does not name an agent of this workspace`);
      return id.toLowerCase();
    },
  };
}

/** The target of a forward, shared by routing and guard rules. */
export const destinationFields = {
  destination_type: 'destinationType',
  destination: 'destination',
} as const;
