import { Injectable } from '@nestjs/common';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { agentChildRepository } from './agent-child.repository';
import { AgentWebhook } from './agent-webhook.entity';

const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A correlated sub-select (for an `agents a` row): the agent's webhooks as a JSON array in their API shape,
 * oldest first; the secret itself never leaves, only whether one is set.
 */
const AGENT_WEBHOOKS_SQL = `
  SELECT coalesce(json_agg(json_build_object('uuid', x.id, 'webhook_uuid', x.id, 'url', x.url,
       'events', to_json(x.events), 'is_active', x.is_active, 'has_secret', x.secret_ciphertext IS NOT NULL,
       'previous_secret_expires_at',
         CASE WHEN x.previous_secret_expires_at > now() THEN ${iso('x.previous_secret_expires_at')} END,
       'created_at', ${iso('x.created_at')}, 'updated_at', ${iso('x.updated_at')}) ORDER BY x.seq), '[]'::json)
    FROM agent_webhooks x
   WHERE x.workspace_id = a.workspace_id AND x.agent_id = a.id`;

@Injectable()
export class AgentWebhooksRepository extends agentChildRepository(AgentWebhook) {
  /** The agent's webhooks for the whole-agent read (AgentViewsRepository). */
  static readonly AGENT_VIEW_SUB_SELECT = AGENT_WEBHOOKS_SQL;

  async disable(workspaceId: WorkspaceId, id: string): Promise<void> {
    await this.updateWhere(workspaceId, { id }, { isActive: false, updatedAt: new Date() } as never);
  }
}
