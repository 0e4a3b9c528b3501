import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { CampaignTasks } from '../engine/campaign-tasks';
import { OutboundEvents } from '../outbound-events';
import { NOT_STARTED, Pool } from '../outbound.entities';
import { CampaignsRepository } from './campaigns.repository';
import {
  AddPoolContactsDto,
  AddPoolContactsResponse,
  CreatePoolDto,
  DuplicatedPoolResponse,
  DuplicatePoolDto,
  PoolListQuery,
  PoolMemberQuery,
  PoolMemberResponse,
  PoolResponse,
  RemovedMemberResponse,
  UpdatePoolDto,
} from './dto/pool.dto';
import { PoolsRepository } from './pools.repository';
import { TasksRepository } from './tasks.repository';
import { memberView, poolView } from './views';

/** Contact pools and their members (§11.1). */
@Injectable()
export class PoolsService {
  constructor(
    private readonly pools: PoolsRepository,
    private readonly campaigns: CampaignsRepository,
    private readonly tasks: TasksRepository,
    private readonly campaignTasks: CampaignTasks,
    private readonly events: OutboundEvents,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async list(workspaceId: WorkspaceId, q: PoolListQuery): Promise<Page<PoolResponse>> {
    const [rows, total] = await this.pools.list(workspaceId, {
      search: q.search,
      type: q.type,
      isActive: q.is_active,
      ...skipTake(q),
    });
    const counts = await this.pools.memberCounts(
      workspaceId,
      rows.map((p) => p.id),
    );
    return pageOf(
      rows.map((p) => poolView(p, counts.get(p.id) ?? 0)),
      total,
      q,
    );
  }

  async find(workspaceId: WorkspaceId, id: string): Promise<Pool> {
    const pool = await this.pools.findById(workspaceId, id);
    if (!pool) throw AppException.notFound('Pool');
    return pool;
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<PoolResponse> {
    const pool = await this.find(workspaceId, id);
    const counts = await this.pools.memberCounts(workspaceId, [id]);
    return poolView(pool, counts.get(id) ?? 0);
  }

  async create(workspaceId: WorkspaceId, dto: CreatePoolDto): Promise<PoolResponse> {
    const pool = this.pools.build(workspaceId, {
      name: dto.name.trim(),
      description: dto.description ?? null,
      type: dto.type ?? 'FIFO',
      maxParallelItems: dto.max_parallel_items ?? 10,
      maxRetries: dto.max_retries ?? 3,
      isActive: dto.is_active ?? true,
    });
    await this.pools.save(workspaceId, pool);
    return poolView(pool, 0);
  }

  /** The keys sent change; a new type applies to later dispatches. */
  async update(workspaceId: WorkspaceId, id: string, dto: UpdatePoolDto): Promise<PoolResponse> {
    const pool = await this.find(workspaceId, id);
    if (dto.name !== undefined) pool.name = dto.name.trim();
    if (dto.description !== undefined) pool.description = dto.description ?? null;
    if (dto.type !== undefined) pool.type = dto.type;
    if (dto.max_parallel_items !== undefined) pool.maxParallelItems = dto.max_parallel_items;
    if (dto.max_retries !== undefined) pool.maxRetries = dto.max_retries;
    if (dto.is_active !== undefined) pool.isActive = dto.is_active;
    await this.pools.save(workspaceId, pool);
    return this.get(workspaceId, id);
  }

  /** Refused while a running or paused campaign uses the pool; otherwise its not-started tasks are cancelled. */
  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    await this.unitOfWork.run(async (tx) => {
      const pool = await this.pools.lock(workspaceId, id, tx);
      if (!pool) throw AppException.notFound('Pool');
      if (await this.campaigns.liveUsing(workspaceId, { poolId: id }, tx))
        throw AppException.conflict('Pool is attached to a running or paused campaign');
      const moved = await this.tasks.move(workspaceId, { poolId: id }, NOT_STARTED, 'cancelled', tx);
      await this.events.tasks(tx, workspaceId, moved);
      await this.pools.delete(workspaceId, { id }, tx);
    });
  }

  /**
   * Adds members (present ones skipped, unknown contacts reported) and, in the same transaction, one task per new
   * member in each running or paused campaign the pool is attached to.
   */
  async addContacts(
    workspaceId: WorkspaceId,
    id: string,
    dto: AddPoolContactsDto,
  ): Promise<AddPoolContactsResponse> {
    return this.unitOfWork.run((tx) =>
      this.addContactsIn(tx, workspaceId, id, dto.contact_uuids, dto.priority),
    );
  }

  /**
   * Adds the contacts (duplicates dropped, unknown ones reported) to the pool inside `tx`, under the pool's lock;
   * each running or paused campaign using the pool gets one task per new member.
   */
  async addContactsIn(
    tx: Transaction,
    workspaceId: WorkspaceId,
    id: string,
    contactIds: string[],
    priority = 0,
  ): Promise<AddPoolContactsResponse> {
    const wanted = [...new Set(contactIds.map((u) => u.toLowerCase()))];
    const pool = await this.pools.lock(workspaceId, id, tx);
    if (!pool) throw AppException.notFound('Pool');
    const known = await this.pools.knownContacts(workspaceId, wanted, tx);
    const present = wanted.filter((c) => known.has(c));
    const added = await this.pools.addMembers(
      workspaceId,
      id,
      present.map((contactId) => ({ contactId, priority })),
      tx,
    );
    const live = await this.pools.liveCampaigns(workspaceId, id, tx);
    let tasksCreated = 0;
    if (added.length)
      for (const c of live)
        tasksCreated += await this.campaignTasks.create(tx, c, { poolIds: [id], contactIds: added });
    return {
      pool_uuid: id,
      contacts_added: added.length,
      contacts_skipped: present.length - added.length,
      contact_uuids_not_found: wanted.filter((c) => !known.has(c)),
      tasks_created: tasksCreated,
      running_campaign_uuids: live.map((c) => c.id),
    };
  }

  async members(workspaceId: WorkspaceId, id: string, q: PoolMemberQuery): Promise<Page<PoolMemberResponse>> {
    const pool = await this.find(workspaceId, id);
    const [rows, total] = await this.pools.members(workspaceId, pool, {
      search: q.search,
      status: q.status,
      ...skipTake(q),
    });
    return pageOf(rows.map(memberView), total, q);
  }

  /** Removes a member; only that contact's not-started tasks of this pool are cancelled. */
  async removeContact(
    workspaceId: WorkspaceId,
    id: string,
    contactId: string,
  ): Promise<RemovedMemberResponse> {
    return this.unitOfWork.run(async (tx) => {
      const pool = await this.pools.lock(workspaceId, id, tx);
      if (!pool) throw AppException.notFound('Pool');
      if (!(await this.pools.removeMember(workspaceId, id, contactId, tx)))
        throw AppException.notFound('Pool member');
      const moved = await this.tasks.move(
        workspaceId,
        { poolId: id, contactId },
        NOT_STARTED,
        'cancelled',
        tx,
      );
      await this.events.tasks(tx, workspaceId, moved);
      return { contact_uuid: contactId, tasks_cancelled: moved.length };
    });
  }

  async duplicate(
    workspaceId: WorkspaceId,
    id: string,
    dto: DuplicatePoolDto,
  ): Promise<DuplicatedPoolResponse> {
    return this.unitOfWork.run(async (tx) => {
      const source = await this.pools.lock(workspaceId, id, tx);
      if (!source) throw AppException.notFound('Pool');
      const copy = this.pools.build(workspaceId, {
        name: dto.name?.trim() ?? `${source.name} (copy)`.slice(0, 255),
        description: source.description,
        type: source.type,
        maxParallelItems: source.maxParallelItems,
        maxRetries: source.maxRetries,
        isActive: source.isActive,
      });
      await this.pools.save(workspaceId, copy, tx);
      const copied =
        dto.copy_contacts === false ? 0 : await this.pools.copyMembers(workspaceId, id, copy.id, tx);
      return { ...poolView(copy, copied), contacts_copied: copied };
    });
  }
}
