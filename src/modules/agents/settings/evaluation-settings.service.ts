import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { EntityManager } from 'typeorm';
import {
  EvaluationSettings,
  factoryEvaluationSettings,
  mergeEvaluationSettings,
} from './evaluation-settings';
import { EvaluationRow, EvaluationSettingsRepository } from './evaluation-settings.repository';

export interface EffectiveEvaluationSettings extends EvaluationSettings {
  source: 'default' | 'agent';
  /** Grows on every change of these effective settings; evaluation records keep it as `settings_version`. */
  version: number;
}

/**
 * Evaluation settings: the workspace default (factory values until first changed) and per-agent overrides,
 * with the transitions of the specification (assign, merge, revert). Callers check that the agent exists.
 */
@Injectable()
export class EvaluationSettingsService {
  constructor(
    private readonly rows: EvaluationSettingsRepository,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  private static defaultOf(def: EvaluationRow | null): EvaluationSettings {
    return def?.settings ? (def.settings as unknown as EvaluationSettings) : factoryEvaluationSettings();
  }

  private static effective(
    def: EvaluationRow | null,
    agent: EvaluationRow | null,
  ): EffectiveEvaluationSettings {
    if (agent?.is_override && agent.settings)
      return {
        source: 'agent',
        version: Number(agent.version),
        ...(agent.settings as unknown as EvaluationSettings),
      };
    // An agent that reverted keeps its row (without settings) so that its version still grows past the override's.
    const version = Math.max(Number(def?.version ?? 0), Number(agent?.version ?? 0));
    return { source: 'default', version, ...EvaluationSettingsService.defaultOf(def) };
  }

  /**
   * The agent's evaluation rows (its own and the workspace default) as JSON, a sub-select correlated with the
   * `agents a` row of the whole-agent read (`AgentsService.viewWith`'s extras); read with `effectiveFromView`.
   */
  static readonly AGENT_VIEW_SUB_SELECT = EvaluationSettingsRepository.AGENT_VIEW_SUB_SELECT;

  /** The effective settings from the rows of `AGENT_VIEW_SUB_SELECT` (JSON). */
  static effectiveFromView(json: unknown, agentId: string): EffectiveEvaluationSettings {
    const rows = ((json ?? []) as (Omit<EvaluationRow, 'updated_at'> & { updated_at: string })[]).map(
      (r) => ({ ...r, updated_at: new Date(r.updated_at) }),
    );
    return EvaluationSettingsService.effective(
      rows.find((r) => r.agent_id === null) ?? null,
      rows.find((r) => r.agent_id === agentId) ?? null,
    );
  }

  async getDefault(workspaceId: WorkspaceId): Promise<EffectiveEvaluationSettings> {
    const { def } = await this.rows.evaluationRows(workspaceId, null);
    return EvaluationSettingsService.effective(def, null);
  }

  async updateDefault(workspaceId: WorkspaceId, patch: unknown): Promise<EffectiveEvaluationSettings> {
    await this.unitOfWork.run(async (m) => {
      await this.rows.lockWorkspace(workspaceId, m);
      const { def } = await this.rows.evaluationRows(workspaceId, null, m);
      const merged = mergeEvaluationSettings(EvaluationSettingsService.defaultOf(def), patch);
      await this.rows.saveEvaluation(workspaceId, null, merged as unknown as Record<string, unknown>, m);
    });
    return this.getDefault(workspaceId);
  }

  /** The settings that apply to the agent's sessions now, with their source and version. */
  async effectiveFor(
    workspaceId: WorkspaceId,
    agentId: string,
    manager?: EntityManager,
  ): Promise<EffectiveEvaluationSettings> {
    const { def, agent } = await this.rows.evaluationRows(workspaceId, agentId, manager);
    return EvaluationSettingsService.effective(def, agent);
  }

  /** Creates the agent's override as a copy of the default; an existing override is left as it is. */
  async assign(workspaceId: WorkspaceId, agentId: string): Promise<EffectiveEvaluationSettings> {
    await this.unitOfWork.run(async (m) => {
      await this.rows.lockWorkspace(workspaceId, m);
      const { def, agent } = await this.rows.evaluationRows(workspaceId, agentId, m);
      if (agent?.is_override) return;
      const copy = EvaluationSettingsService.defaultOf(def);
      await this.rows.saveEvaluation(workspaceId, agentId, copy as unknown as Record<string, unknown>, m);
    });
    return this.effectiveFor(workspaceId, agentId);
  }

  /** Merges the keys sent into the agent's override, creating it from the default first. */
  async updateForAgent(
    workspaceId: WorkspaceId,
    agentId: string,
    patch: unknown,
  ): Promise<EffectiveEvaluationSettings> {
    await this.unitOfWork.run(async (m) => {
      await this.rows.lockWorkspace(workspaceId, m);
      const { def, agent } = await this.rows.evaluationRows(workspaceId, agentId, m);
      const base =
        agent?.is_override && agent.settings
          ? (agent.settings as unknown as EvaluationSettings)
          : EvaluationSettingsService.defaultOf(def);
      const merged = mergeEvaluationSettings(base, patch);
      await this.rows.saveEvaluation(workspaceId, agentId, merged as unknown as Record<string, unknown>, m);
    });
    return this.effectiveFor(workspaceId, agentId);
  }

  /** Removes the override: the agent inherits the default again. Without an override nothing changes. */
  async revert(workspaceId: WorkspaceId, agentId: string): Promise<EffectiveEvaluationSettings> {
    await this.unitOfWork.run(async (m) => {
      await this.rows.lockWorkspace(workspaceId, m);
      const { agent } = await this.rows.evaluationRows(workspaceId, agentId, m);
      if (agent?.is_override) await this.rows.saveEvaluation(workspaceId, agentId, null, m);
    });
    return this.effectiveFor(workspaceId, agentId);
  }
}
