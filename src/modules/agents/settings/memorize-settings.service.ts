import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { SettingsRepository } from './settings.repository';

export interface MemorizeSettings {
  contact_field_settings: Record<string, unknown>;
  conversation_settings: Record<string, unknown>;
  channel_settings: Record<string, unknown>;
  is_active: boolean;
}

export interface EffectiveMemorizeSettings extends MemorizeSettings {
  source: 'default' | 'agent';
  updated_at: string | null;
}

export type MemorizePatch = Partial<MemorizeSettings>;

const OBJECT_KEYS = ['contact_field_settings', 'conversation_settings', 'channel_settings'] as const;

/** Factory defaults: memorize on, nothing configured in the three blocks. */
export function factoryMemorizeSettings(): MemorizeSettings {
  return { contact_field_settings: {}, conversation_settings: {}, channel_settings: {}, is_active: true };
}

/** Each supplied block is merged key by key into the current one; `is_active` replaces. */
export function mergeMemorize(base: MemorizeSettings, patch: MemorizePatch): MemorizeSettings {
  const out = structuredClone(base);
  for (const key of OBJECT_KEYS) if (patch[key]) out[key] = { ...out[key], ...patch[key] };
  if (patch.is_active !== undefined) out.is_active = patch.is_active;
  return out;
}

/** Memorize settings: the workspace default and per-agent overrides (create-from-default, reset to factory). */
@Injectable()
export class MemorizeSettingsService {
  constructor(
    private readonly rows: SettingsRepository,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  private static read(row: { settings: Record<string, unknown> } | null): MemorizeSettings {
    return row
      ? { ...factoryMemorizeSettings(), ...(row.settings as Partial<MemorizeSettings>) }
      : factoryMemorizeSettings();
  }

  /**
   * The agent's memorize rows (its own and the workspace default) as JSON, a sub-select correlated with the
   * `agents a` row of the whole-agent read (`AgentsService.viewWith`'s extras); read with `effectiveFromView`.
   */
  static readonly AGENT_VIEW_SUB_SELECT = SettingsRepository.AGENT_VIEW_SUB_SELECT;

  /** The effective settings from the rows of `AGENT_VIEW_SUB_SELECT` (JSON), as effectiveFor. */
  static effectiveFromView(json: unknown, agentId: string): EffectiveMemorizeSettings {
    const rows = (json ?? []) as {
      agent_id: string | null;
      settings: Record<string, unknown>;
      updated_at: string;
    }[];
    const agent = rows.find((r) => r.agent_id === agentId) ?? null;
    const row = agent ?? rows.find((r) => r.agent_id === null) ?? null;
    return {
      source: agent ? 'agent' : 'default',
      ...MemorizeSettingsService.read(row),
      updated_at: row ? new Date(row.updated_at).toISOString() : null,
    };
  }

  async getDefault(workspaceId: WorkspaceId): Promise<EffectiveMemorizeSettings> {
    const { def } = await this.rows.memorizeRows(workspaceId, null);
    return {
      source: 'default',
      ...MemorizeSettingsService.read(def),
      updated_at: def?.updated_at.toISOString() ?? null,
    };
  }

  async updateDefault(workspaceId: WorkspaceId, patch: MemorizePatch): Promise<EffectiveMemorizeSettings> {
    await this.unitOfWork.run(async (m) => {
      await this.rows.lockWorkspace(workspaceId, m);
      const { def } = await this.rows.memorizeRows(workspaceId, null, m);
      const merged = mergeMemorize(MemorizeSettingsService.read(def), patch);
      await this.rows.saveMemorize(workspaceId, null, merged as unknown as Record<string, unknown>, m);
    });
    return this.getDefault(workspaceId);
  }

  /** The agent's override when it has one, else the workspace default. */
  async effectiveFor(workspaceId: WorkspaceId, agentId: string): Promise<EffectiveMemorizeSettings> {
    const { def, agent } = await this.rows.memorizeRows(workspaceId, agentId);
    const row = agent ?? def;
    return {
      source: agent ? 'agent' : 'default',
      ...MemorizeSettingsService.read(row),
      updated_at: row?.updated_at.toISOString() ?? null,
    };
  }

  /** First PUT creates the override from the workspace default, then applies the changes. */
  async updateForAgent(
    workspaceId: WorkspaceId,
    agentId: string,
    patch: MemorizePatch,
  ): Promise<EffectiveMemorizeSettings> {
    await this.unitOfWork.run(async (m) => {
      await this.rows.lockWorkspace(workspaceId, m);
      const { def, agent } = await this.rows.memorizeRows(workspaceId, agentId, m);
      const merged = mergeMemorize(MemorizeSettingsService.read(agent ?? def), patch);
      await this.rows.saveMemorize(workspaceId, agentId, merged as unknown as Record<string, unknown>, m);
    });
    return this.effectiveFor(workspaceId, agentId);
  }

  /** The override (created first when missing) goes back to factory defaults; the workspace default is untouched. */
  async reset(workspaceId: WorkspaceId, agentId: string): Promise<EffectiveMemorizeSettings> {
    await this.rows.saveMemorize(
      workspaceId,
      agentId,
      factoryMemorizeSettings() as unknown as Record<string, unknown>,
    );
    return this.effectiveFor(workspaceId, agentId);
  }
}
