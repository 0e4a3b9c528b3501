import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, PageQuery, pageOf, skipTake } from '@/common/http/pagination';
import { isPgError, PG_UNIQUE_VIOLATION } from '@/common/persistence/pg-errors';
import { isUuid } from '@/common/validation/validators';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AnalyzersRepository } from './analyzers.repository';
import { BUILT_IN_ANALYZERS, BuiltIn, FieldAnalyzer, StageAnalyzer } from './analyzers.catalog';
import { ContactAnalyzer, DEFAULT_UPDATE_BEHAVIOR } from './contact-analyzer.entity';
import { ContactField } from './contact-field.entity';
import { AnalyzerResponse, UpdateAnalyzerDto } from './dto/analyzer.dto';
import { FieldsRepository } from './fields.repository';
import { PipelineStage } from './pipeline-stage.entity';
import { StagesRepository } from './stages.repository';

type Target =
  | { kind: 'builtin'; builtIn: BuiltIn }
  | { kind: 'field'; field: ContactField }
  | { kind: 'stage'; stage: PipelineStage };

/**
 * Analyzers: one per built-in field (`b_<field>`), custom field (`f_<key>`) and pipeline stage (`p_<uuid>`).
 * Only changed ones have a row; the others answer the defaults.
 */
@Injectable()
export class AnalyzersService {
  constructor(
    private readonly analyzers: AnalyzersRepository,
    private readonly fields: FieldsRepository,
    private readonly stages: StagesRepository,
  ) {}

  /** Built-in fields (fixed order), then custom fields by key, then stages by their order. */
  async list(workspaceId: WorkspaceId, q: PageQuery): Promise<Page<AnalyzerResponse>> {
    const [fields, stages, rows] = await Promise.all([
      this.fields.find(workspaceId, { order: { key: 'ASC' } }),
      this.stages.find(workspaceId, { order: { order: 'ASC', createdAt: 'ASC', id: 'ASC' } }),
      this.analyzers.find(workspaceId),
    ]);
    const targets: Target[] = [
      ...BUILT_IN_ANALYZERS.map((builtIn) => ({ kind: 'builtin' as const, builtIn })),
      ...fields.map((field) => ({ kind: 'field' as const, field })),
      ...stages.map((stage) => ({ kind: 'stage' as const, stage })),
    ];
    const { skip, take } = skipTake(q);
    return pageOf(
      targets.slice(skip, skip + take).map((t) => this.toResponse(t, this.rowFor(rows, t))),
      targets.length,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<AnalyzerResponse> {
    const target = await this.target(workspaceId, id);
    return this.toResponse(target, await this.stored(workspaceId, target));
  }

  /**
   * Only the keys sent change. `b_`: only `update_behavior` (a different goal or example is 422); `p_`: no
   * `example_values` (422).
   */
  async update(workspaceId: WorkspaceId, id: string, dto: UpdateAnalyzerDto): Promise<AnalyzerResponse> {
    const target = await this.target(workspaceId, id);
    if (target.kind === 'builtin') {
      for (const [key, fixed] of [
        ['analysis_goals', target.builtIn.goals],
        ['example_values', target.builtIn.examples],
      ] as const)
        if (dto[key] !== undefined && dto[key] !== fixed)
          throw AppException.invalid(
            key,
            `${key} of a built-in field analyzer cannot change; only update_behavior can`,
            'VALIDATION_ERROR',
          );
    }
    if (target.kind === 'stage' && dto.example_values !== undefined && dto.example_values !== null)
      throw AppException.invalid(
        'example_values',
        'example_values does not apply to a pipeline stage analyzer',
        'VALIDATION_ERROR',
      );
    for (let attempt = 0; ; attempt++) {
      const row =
        (await this.stored(workspaceId, target)) ??
        this.analyzers.build(workspaceId, {
          kind: target.kind,
          builtinField: target.kind === 'builtin' ? target.builtIn.field : null,
          fieldId: target.kind === 'field' ? target.field.id : null,
          stageId: target.kind === 'stage' ? target.stage.id : null,
          updateBehavior: DEFAULT_UPDATE_BEHAVIOR,
          analysisGoals: null,
          exampleValues: null,
        });
      if (dto.update_behavior !== undefined) row.updateBehavior = dto.update_behavior;
      if (target.kind !== 'builtin') {
        if (dto.analysis_goals !== undefined) row.analysisGoals = dto.analysis_goals?.trim() || null;
        if (target.kind === 'field' && dto.example_values !== undefined)
          row.exampleValues = dto.example_values?.trim() || null;
      }
      try {
        await this.analyzers.save(workspaceId, row);
        return this.toResponse(target, row);
      } catch (err) {
        if (attempt === 0 && isPgError(err, PG_UNIQUE_VIOLATION)) continue;
        throw err;
      }
    }
  }

  /**
   * The analyzers of contact fields as memorize names them (`email`, `custom_fields.plan`); a field with no
   * analyzer (an unknown custom key) gets the defaults.
   */
  async forFields(workspaceId: WorkspaceId, fieldNames: string[]): Promise<Map<string, FieldAnalyzer>> {
    const [fields, rows] = await Promise.all([
      fieldNames.some((f) => f.startsWith('custom_fields.')) ? this.fields.find(workspaceId) : [],
      this.analyzers.find(workspaceId, { where: [{ kind: 'builtin' }, { kind: 'field' }] }),
    ]);
    const fieldByKey = new Map(fields.map((f) => [f.key, f]));
    const out = new Map<string, FieldAnalyzer>();
    for (const name of fieldNames) {
      const [head, sub] = name.split('.', 2);
      const builtIn = sub ? undefined : BUILT_IN_ANALYZERS.find((b) => b.field === head);
      const field = sub && head === 'custom_fields' ? fieldByKey.get(sub) : undefined;
      const row = builtIn
        ? rows.find((r) => r.builtinField === builtIn.field)
        : field
          ? rows.find((r) => r.fieldId === field.id)
          : undefined;
      out.set(name, {
        updateBehavior: row?.updateBehavior ?? DEFAULT_UPDATE_BEHAVIOR,
        analysisGoals: builtIn ? builtIn.goals : (row?.analysisGoals ?? null),
        exampleValues: builtIn ? builtIn.examples : (row?.exampleValues ?? null),
        ...(field ? { valueType: field.type } : {}),
      });
    }
    return out;
  }

  /** Every pipeline stage of the workspace (by order) with its analyzer, defaults for those without a row. */
  async forStages(workspaceId: WorkspaceId): Promise<StageAnalyzer[]> {
    const [stages, rows] = await Promise.all([
      this.stages.find(workspaceId, { order: { order: 'ASC', createdAt: 'ASC', id: 'ASC' } }),
      this.analyzers.find(workspaceId, { where: { kind: 'stage' } }),
    ]);
    return stages.map((stage) => {
      const row = rows.find((r) => r.stageId === stage.id);
      return {
        stageId: stage.id,
        name: stage.name,
        updateBehavior: row?.updateBehavior ?? DEFAULT_UPDATE_BEHAVIOR,
        analysisGoals: row?.analysisGoals ?? null,
      };
    });
  }

  private async target(workspaceId: WorkspaceId, id: string): Promise<Target> {
    const notFound = AppException.notFound('Analyzer');
    const prefix = id.slice(0, 2);
    const rest = id.slice(2);
    if (prefix === 'b_') {
      const builtIn = BUILT_IN_ANALYZERS.find((b) => b.field === rest);
      if (builtIn) return { kind: 'builtin', builtIn };
    } else if (prefix === 'f_' && rest) {
      const field = await this.fields.findOne(workspaceId, { key: rest });
      if (field) return { kind: 'field', field };
    } else if (prefix === 'p_' && isUuid(rest)) {
      const stage = await this.stages.findById(workspaceId, rest.toLowerCase());
      if (stage) return { kind: 'stage', stage };
    }
    throw notFound;
  }

  private stored(workspaceId: WorkspaceId, t: Target): Promise<ContactAnalyzer | null> {
    return this.analyzers.findOne(
      workspaceId,
      t.kind === 'builtin'
        ? { builtinField: t.builtIn.field }
        : t.kind === 'field'
          ? { fieldId: t.field.id }
          : { stageId: t.stage.id },
    );
  }

  private rowFor(rows: ContactAnalyzer[], t: Target): ContactAnalyzer | null {
    return (
      rows.find((r) =>
        t.kind === 'builtin'
          ? r.builtinField === t.builtIn.field
          : t.kind === 'field'
            ? r.fieldId === t.field.id
            : r.stageId === t.stage.id,
      ) ?? null
    );
  }

  private toResponse(t: Target, row: ContactAnalyzer | null): AnalyzerResponse {
    const common = {
      update_behavior: row?.updateBehavior ?? DEFAULT_UPDATE_BEHAVIOR,
      updated_at: row?.updatedAt?.toISOString() ?? null,
    };
    switch (t.kind) {
      case 'builtin':
        return {
          id: `b_${t.builtIn.field}`,
          type: 'built_in',
          label: t.builtIn.label,
          field_name: t.builtIn.field,
          stage_uuid: null,
          analysis_goals: t.builtIn.goals,
          example_values: t.builtIn.examples,
          editable: ['update_behavior'],
          ...common,
        };
      case 'field':
        return {
          id: `f_${t.field.key}`,
          type: 'custom_field',
          label: t.field.label,
          field_name: `custom_fields.${t.field.key}`,
          stage_uuid: null,
          analysis_goals: row?.analysisGoals ?? null,
          example_values: row?.exampleValues ?? null,
          editable: ['update_behavior', 'analysis_goals', 'example_values'],
          ...common,
        };
      case 'stage':
        return {
          id: `p_${t.stage.id}`,
          type: 'pipeline_stage',
          label: t.stage.name,
          field_name: null,
          stage_uuid: t.stage.id,
          analysis_goals: row?.analysisGoals ?? null,
          example_values: null,
          editable: ['update_behavior', 'analysis_goals'],
          ...common,
        };
    }
  }
}
