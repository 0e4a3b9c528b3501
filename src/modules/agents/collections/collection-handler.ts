import type { Type } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ErrorCode } from '@/common/errors/error-codes';
import type { ScopedWhere } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { AgentChildEntity } from './agent-child.entity';
import type { AgentChildRepository } from './agent-child.repository';

export type CollectionName =
  | 'guidelines'
  | 'notes'
  | 'training'
  | 'procedures'
  | 'intents'
  | 'webhooks'
  | 'routing_rules'
  | 'guard_rules';

/** What one write sees: the tenant, the agent, the transaction, and the prefix of error fields (`routing_rules.2.`). */
export interface WriteContext {
  workspaceId: WorkspaceId;
  agentId: string;
  m: EntityManager;
  prefix: string;
  /** The rows already in the set being written (earlier items of a PUT, or the stored rows). */
  siblings: AgentChildEntity[];
}

/** A body key copied as it is onto a row property, or converted first (checks may throw a 422). */
export type FieldSpec<E> = keyof E | { to: keyof E; convert: (value: never, ctx: WriteContext) => unknown };

/** A new row's value for a property the body left unset: a constant, or computed in the write. */
export type DefaultSpec = string | number | boolean | null | ((ctx: WriteContext) => unknown);

/** How the routes of one collection are named and documented. */
export interface CollectionRoute {
  name: CollectionName;
  /** The path under /agents/{uuid}. */
  path: string;
  itemParam: 'itemUuid' | 'ruleUuid';
  /** The suffix of the operation names (addGuideline, replaceGuideline, ...). */
  method: string;
  one: string;
  all: string;
  item: string;
  /** The sentence every write of this collection adds to its description. */
  rule?: string;
  errors: ErrorCode[];
  body: { create: Type<unknown>; replace: Type<unknown>; update: Type<unknown> };
}

/** One collection of an agent: its table, its route, and how a body becomes a row. */
export interface CollectionHandler<E extends AgentChildEntity = AgentChildEntity> {
  readonly route: CollectionRoute;
  /** The name of one item in a 404. */
  readonly label: string;
  readonly repo: AgentChildRepository<E>;
  readonly scope: ScopedWhere<E>;
  /** Fields that a PATCH may not set to null; on create a null there means "use the default". */
  readonly required: readonly string[];
  readonly fields: Readonly<Record<string, FieldSpec<E>>>;
  readonly defaults: Readonly<Partial<Record<keyof E, DefaultSpec>>>;
  /** What the field map cannot say: keys derived from others, secrets. Runs after the fields, before defaults. */
  finish?(ctx: WriteContext, row: E, dto: Record<string, unknown>, creating: boolean): void | Promise<void>;
  /** Checks across the whole set after the write. */
  check?(ctx: WriteContext, rows: E[]): Promise<void>;
  /** Runs after rows were removed (e.g. detach procedure steps from removed intents). */
  removed?(ctx: WriteContext, ids: string[]): Promise<void>;
}

/** Copies the keys present in the body onto the row, then fills a new row's unset properties. */
export async function applyBody<E extends AgentChildEntity>(
  handler: CollectionHandler<E>,
  ctx: WriteContext,
  row: E,
  dto: Record<string, unknown>,
  creating: boolean,
): Promise<void> {
  const target = row as unknown as Record<string, unknown>;
  for (const [key, spec] of Object.entries(handler.fields)) {
    if (dto[key] === undefined) continue;
    if (typeof spec === 'object') target[spec.to as string] = await spec.convert(dto[key] as never, ctx);
    else target[spec as string] = dto[key];
  }
  await handler.finish?.(ctx, row, dto, creating);
  if (!creating) return;
  for (const [prop, value] of Object.entries(handler.defaults) as [string, DefaultSpec][])
    if (target[prop] === undefined || target[prop] === null)
      target[prop] = typeof value === 'function' ? await value(ctx) : value;
}

/** max + 1 over the stored rows and the items already placed in this write (1 for the first). */
export async function nextNumber<E extends AgentChildEntity>(
  ctx: WriteContext,
  repo: AgentChildRepository<E>,
  column: 'order' | 'priority',
  scope: ScopedWhere<E>,
): Promise<number> {
  const stored = await repo.maxOf(ctx.workspaceId, ctx.agentId, column, scope, ctx.m);
  const placed = ctx.siblings.map((s) => (s as unknown as Record<string, number | undefined>)[column]);
  const all = [stored, ...placed].filter((x): x is number => typeof x === 'number');
  return all.length ? Math.max(...all) + 1 : 1;
}
