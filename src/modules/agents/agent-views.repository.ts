import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { agentConfigVersionSql } from '@/common/persistence/agent-config-version';
import type { AgentSettings, AgentStatus } from './agent.entity';
import type { AgentBindings } from '@/modules/phone-numbers/dto/agent-bindings.response';
import { AgentBindingsView } from '@/modules/phone-numbers/agent-bindings.section';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AgentWebhooksRepository } from './collections/agent-webhooks.repository';
import type {
  GuardRuleResponse,
  IntentResponse,
  NoteResponse,
  ProcedureResponse,
  RoutingRuleResponse,
  TrainingResponse,
  WebhookResponse,
} from './dto/agent.response';

const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const list = (select: string, from: string, order: string) =>
  `(SELECT coalesce(json_agg(${select} ORDER BY ${order}), '[]'::json) FROM ${from} x
     WHERE x.workspace_id = a.workspace_id AND x.agent_id = a.id`;

/**
 * The whole agent in one statement, every collection already in its API shape, built by PostgreSQL; the webhooks
 * and the numbers and channels (the phone-numbers module's) are sub-selects their repositories give, each correlated
 * with the agent row `a`, answering one JSON value and filtering its own tables on `a.workspace_id`: a whole agent
 * stays one round trip with one plan, while each table's SQL stays in its own repository. Exported so that the
 * benchmark's bare handler runs the very same SELECT.
 */
export const agentViewSql = (sections: { bindings: string; webhooks: string }, extra = ''): string => `
SELECT a.id, a.name, a.description, a.company_name, a.role, a.objective, a.tone, a.behavior_guidelines,
       a.company_service, a.topic, a.length_detail, a.interest_of_product, a.negative_response, a.custom_prompt,
       a.language, a.speed, a.timezone, a.custom_llm_url, a.recommendations, a.status,
       a.appointment_scheduling_enabled, a.appointment_scheduling_randomly, a.settings,
       ${iso('a.created_at')} AS created_at, ${iso('a.updated_at')} AS updated_at,
  ${list(`json_build_object('uuid', x.id, 'content', x.content, 'order', x."order")`, 'agent_notes', 'x."order", x.seq')}
     AND x.kind = 'guideline') AS guidelines,
  ${list(`json_build_object('uuid', x.id, 'content', x.content, 'order', x."order")`, 'agent_notes', 'x."order", x.seq')}
     AND x.kind = 'note') AS notes,
  ${list(
    `json_build_object('uuid', x.id, 'content', x.content, 'intent', x.intent, 'response', x.response)`,
    'agent_training',
    'x.seq',
  )}) AS training,
  ${list(
    `json_build_object('uuid', x.id, 'name', x.name, 'description', x.description, 'steps', x.steps)`,
    'agent_procedures',
    'x.seq',
  )}) AS procedures,
  ${list(
    `json_build_object('intent_uuid', x.id, 'key', x.key, 'name', x.name, 'description', x.description,
       'recommendation_actions', x.recommendation_actions, 'confidence_threshold', x.confidence_threshold,
       'is_system', x.is_system, 'intent_llm_handle_by_response', x.intent_llm_handle_by_response,
       'webhook', x.webhook, 'parameters', x.parameters,
       'created_at', ${iso('x.created_at')}, 'updated_at', ${iso('x.updated_at')})`,
    'agent_intents',
    'x.seq',
  )}) AS intents,
  (${sections.webhooks}) AS webhooks,
  ${list(
    `json_build_object('uuid', x.id, 'detection_mode', x.detection_mode, 'trigger_keyword', x.trigger_keyword,
       'department_name', x.department_name, 'phrases', x.phrases, 'ai_prompt', x.ai_prompt,
       'voice_response', x.voice_response, 'voice_on_error', x.voice_on_error, 'voice_on_success', x.voice_on_success,
       'destination_type', x.destination_type, 'destination', x.destination,
       'destination_agent_uuid', x.destination_agent_id, 'transfer_type', x.transfer_type,
       'transfer_config', x.transfer_config, 'priority', x.priority, 'is_active', x.is_active,
       'created_at', ${iso('x.created_at')}, 'updated_at', ${iso('x.updated_at')})`,
    'agent_routing_rules',
    'x.priority, x.seq',
  )}) AS routing_rules,
  ${list(
    `json_build_object('uuid', x.id, 'name', x.name, 'when_condition', x.when_condition,
       'example_phrases', x.example_phrases, 'then_action', x.then_action, 'selected_channels', x.selected_channels,
       'say_before_forwarding', x.say_before_forwarding, 'say_before_end', x.say_before_end,
       'destination_type', x.destination_type, 'destination', x.destination,
       'destination_agent_uuid', x.destination_agent_id, 'is_active', x.is_active, 'is_default', x.is_default,
       'created_at', ${iso('x.created_at')}, 'updated_at', ${iso('x.updated_at')})`,
    'agent_guard_rules',
    'x.seq',
  )}) AS guard_rules,
  (${sections.bindings}) AS bindings${extra}
FROM agents a
WHERE a.workspace_id = $1 AND a.id = ANY($2::uuid[])`;

export interface AgentViewRow {
  id: string;
  name: string;
  description: string | null;
  company_name: string | null;
  role: string | null;
  objective: string | null;
  tone: string | null;
  behavior_guidelines: string | null;
  company_service: string | null;
  topic: string | null;
  length_detail: string | null;
  interest_of_product: string | null;
  negative_response: string | null;
  custom_prompt: string | null;
  language: string | null;
  speed: string | null;
  timezone: string | null;
  custom_llm_url: string | null;
  recommendations: string | null;
  status: AgentStatus;
  appointment_scheduling_enabled: boolean;
  appointment_scheduling_randomly: boolean;
  settings: AgentSettings;
  created_at: string;
  updated_at: string;
  guidelines: NoteResponse[];
  notes: NoteResponse[];
  training: TrainingResponse[];
  procedures: ProcedureResponse[];
  intents: IntentResponse[];
  webhooks: WebhookResponse[];
  routing_rules: RoutingRuleResponse[];
  guard_rules: GuardRuleResponse[];
  bindings: AgentBindings;
}

/** The agent's webhooks, already in their API shape (`has_secret`, never the secret). */
const WEBHOOKS = AgentWebhooksRepository.AGENT_VIEW_SUB_SELECT;

export type AgentViewWithExtras = AgentViewRow & { config_version: string | null } & Record<string, unknown>;

/** More correlated sub-selects (other modules' rows, keyed by column name) read in the agent view's statement. */
export type AgentViewExtras = Record<string, string>;

/** The read model of agents: the whole agent with its collections, for one or many agents at once. */
@Injectable()
export class AgentViewsRepository {
  private readonly viewSql: string;
  /** The view statement with each set of extras, by the name it is prepared under. */
  private readonly extendedSql = new Map<string, string>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly bindings: AgentBindingsView,
  ) {
    this.viewSql = agentViewSql({ bindings: bindings.subSelect, webhooks: WEBHOOKS });
  }

  /** Rows in the order of `ids`; missing agents are left out. */
  async load(workspaceId: WorkspaceId, ids: string[], manager?: EntityManager): Promise<AgentViewRow[]> {
    if (!ids.length) return [];
    const rows = manager
      ? ((await manager.query(this.viewSql, [workspaceId, ids])) as AgentViewRow[])
      : await this.prepared(workspaceId, ids);
    for (const r of rows) r.bindings = this.bindings.toResponse(r.bindings);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r): r is AgentViewRow => !!r);
  }

  /**
   * One agent's row with `extras` and `config_version` (agentConfigVersionSql) as columns of the same statement, one
   * snapshot: what the extras read is at least as new as the version beside it. `name` names the set of extras (the
   * statement is prepared once per connection under it). Null when the agent is not in this workspace.
   */
  async loadWith(
    workspaceId: WorkspaceId,
    agentId: string,
    name: string,
    extras: AgentViewExtras,
  ): Promise<AgentViewWithExtras | null> {
    let text = this.extendedSql.get(name);
    if (!text) {
      const columns = Object.entries({ ...extras, config_version: agentConfigVersionSql('a').slice(1, -1) })
        .map(([column, sql]) => `,\n  (${sql}) AS ${column}`)
        .join('');
      text = agentViewSql({ bindings: this.bindings.subSelect, webhooks: WEBHOOKS }, columns);
      this.extendedSql.set(name, text);
    }
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const { rows } = await pool.query<AgentViewWithExtras>({
      name: `agent_view_${name}`,
      text,
      values: [workspaceId, [agentId]],
    });
    const row = rows[0];
    if (!row) return null;
    row.bindings = this.bindings.toResponse(row.bindings);
    return row;
  }

  /**
   * A named statement: each pooled connection parses and plans the view once and then reuses the plan
   * (planning the eight sub-selects costs more than running them).
   */
  private async prepared(workspaceId: WorkspaceId, ids: string[]): Promise<AgentViewRow[]> {
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const result = await pool.query<AgentViewRow>({
      name: 'agent_view_v2',
      text: this.viewSql,
      values: [workspaceId, ids],
    });
    return result.rows;
  }
}
