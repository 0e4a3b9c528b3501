import { AppException } from '@/common/errors/app.exception';
import type { AgentsService } from '@/modules/agents/agents.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** The agent a body names in `agent_uuid`, lower-cased; unknown or another workspace's: 422 on `agent_uuid`. */
export async function agentInBody(
  agents: AgentsService,
  workspaceId: WorkspaceId,
  agentUuid: string,
): Promise<string> {
  const id = agentUuid.toLowerCase();
  if (!(await agents.exists(workspaceId, id)))
    throw AppException.invalid(
      'agent_uuid',
      'agent_uuid names no agent of this workspace',
      'VALIDATION_ERROR',
    );
  return id;
}
