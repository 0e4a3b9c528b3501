import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AgentChildEntity } from './agent-child.entity';
import { AgentWriteLock } from './agent-write-lock';
import { applyBody, CollectionHandler, CollectionName, WriteContext } from './collection-handler';
import { COLLECTION_HANDLERS } from './handlers';

/**
 * POST one, PUT all, PATCH one, DELETE one for every collection an agent holds, each through its handler. Each
 * write runs in one transaction holding the agent's row lock.
 */
@Injectable()
export class AgentCollectionsService {
  private readonly handlers = new Map<CollectionName, CollectionHandler>();

  constructor(
    private readonly lock: AgentWriteLock,
    @Inject(COLLECTION_HANDLERS) handlers: CollectionHandler[],
  ) {
    for (const h of handlers) this.handlers.set(h.route.name, h);
  }

  private handler(name: CollectionName): CollectionHandler {
    const h = this.handlers.get(name);
    if (!h) throw new Error(`No handler for the collection ${name}`);
    return h;
  }

  /** On create, `null` for a key that cannot be null means the same as leaving it out: its default applies. */
  private withoutNulls(h: CollectionHandler, dto: object): Record<string, unknown> {
    const out = { ...(dto as Record<string, unknown>) };
    for (const key of h.required) if (out[key] === null) delete out[key];
    return out;
  }

  async add(workspaceId: WorkspaceId, agentId: string, name: CollectionName, dto: object): Promise<void> {
    const h = this.handler(name);
    await this.lock.write(workspaceId, agentId, async (m) => {
      const stored = await h.repo.listFor(workspaceId, agentId, h.scope, m);
      const ctx: WriteContext = { workspaceId, agentId, m, prefix: '', siblings: stored };
      const row = h.repo.build(workspaceId, { agentId });
      await applyBody(h, ctx, row, this.withoutNulls(h, dto), true);
      await h.check?.(ctx, [...stored, row]);
      await h.repo.save(workspaceId, row, m);
    });
  }

  /** Replaces the whole set: the old rows are deleted first, then the new ones inserted, in one transaction. */
  async replace(
    workspaceId: WorkspaceId,
    agentId: string,
    name: CollectionName,
    items: object[],
  ): Promise<void> {
    const h = this.handler(name);
    await this.lock.write(workspaceId, agentId, async (m) => {
      const old = await h.repo.listFor(workspaceId, agentId, h.scope, m);
      await h.repo.delete(workspaceId, { agentId, ...h.scope }, m);
      const rows: AgentChildEntity[] = [];
      for (const [i, item] of items.entries()) {
        const ctx: WriteContext = { workspaceId, agentId, m, prefix: `${name}.${i}.`, siblings: rows };
        const row = h.repo.build(workspaceId, { agentId });
        await applyBody(h, ctx, row, this.withoutNulls(h, item), true);
        rows.push(row);
      }
      await h.check?.({ workspaceId, agentId, m, prefix: `${name}.`, siblings: rows }, rows);
      // One by one so that the insertion sequence follows the order of the body.
      for (const row of rows) await h.repo.save(workspaceId, row, m);
      await h.removed?.(
        { workspaceId, agentId, m, prefix: '', siblings: rows },
        old.map((o) => o.id),
      );
    });
  }

  /** Changes only the keys sent; the other items are untouched. */
  async patch(
    workspaceId: WorkspaceId,
    agentId: string,
    name: CollectionName,
    itemId: string,
    dto: object,
  ): Promise<void> {
    const h = this.handler(name);
    const body = dto as Record<string, unknown>;
    for (const key of h.required)
      if (body[key] === null) throw AppException.invalid(key, `${key} must not be null`, 'VALIDATION_ERROR');
    await this.lock.write(workspaceId, agentId, async (m) => {
      const stored = await h.repo.listFor(workspaceId, agentId, h.scope, m);
      const row = stored.find((r) => r.id === itemId);
      if (!row) throw AppException.notFound(h.label);
      const ctx: WriteContext = { workspaceId, agentId, m, prefix: '', siblings: stored };
      await applyBody(h, ctx, row, body, false);
      row.updatedAt = new Date();
      await h.check?.(ctx, stored);
      await h.repo.save(workspaceId, row, m);
    });
  }

  async remove(
    workspaceId: WorkspaceId,
    agentId: string,
    name: CollectionName,
    itemId: string,
  ): Promise<void> {
    const h = this.handler(name);
    await this.lock.write(workspaceId, agentId, async (m) => {
      const n = await h.repo.delete(workspaceId, { id: itemId, agentId, ...h.scope }, m);
      if (!n) throw AppException.notFound(h.label);
      await h.removed?.({ workspaceId, agentId, m, prefix: '', siblings: [] }, [itemId]);
    });
  }
}
