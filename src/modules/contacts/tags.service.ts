import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, PageQuery, pageOf, skipTake } from '@/common/http/pagination';
import { isPgError, PG_UNIQUE_VIOLATION } from '@/common/persistence/pg-errors';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ContactTag } from './contact-tag.entity';
import { ContactsRepository } from './contacts.repository';
import { CreateTagDto, TagResponse, UpdateTagDto } from './dto/tag.dto';
import { TagsRepository } from './tags.repository';

const NAME_TAKEN = 'A tag with this name already exists in the workspace';

@Injectable()
export class TagsService {
  constructor(
    private readonly tags: TagsRepository,
    private readonly contacts: ContactsRepository,
  ) {}

  private toResponse(t: ContactTag, count: number): TagResponse {
    return {
      uuid: t.id,
      name: t.name,
      description: t.description,
      color: t.color,
      is_active: t.isActive,
      contacts_count: count,
      created_at: t.createdAt.toISOString(),
      updated_at: t.updatedAt.toISOString(),
    };
  }

  private async withCount(workspaceId: WorkspaceId, t: ContactTag): Promise<TagResponse> {
    const counts = await this.contacts.countByTag(workspaceId, [t.id]);
    return this.toResponse(t, counts.get(t.id) ?? 0);
  }

  async list(workspaceId: WorkspaceId, q: PageQuery): Promise<Page<TagResponse>> {
    const [rows, total] = await this.tags.findAndCount(workspaceId, {
      order: { name: 'ASC', id: 'ASC' },
      ...skipTake(q),
    });
    const counts = await this.contacts.countByTag(
      workspaceId,
      rows.map((t) => t.id),
    );
    return pageOf(
      rows.map((t) => this.toResponse(t, counts.get(t.id) ?? 0)),
      total,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<TagResponse> {
    return this.withCount(workspaceId, await this.find(workspaceId, id));
  }

  async create(workspaceId: WorkspaceId, dto: CreateTagDto): Promise<TagResponse> {
    const tag = this.tags.build(workspaceId, {
      name: dto.name.trim(),
      description: dto.description ?? null,
      color: dto.color?.toUpperCase() ?? null,
      isActive: dto.is_active ?? true,
    });
    await this.save(workspaceId, tag);
    return this.toResponse(tag, 0);
  }

  /** Only the keys sent change; the links to contacts are untouched. */
  async update(workspaceId: WorkspaceId, id: string, dto: UpdateTagDto): Promise<TagResponse> {
    const tag = await this.find(workspaceId, id);
    if (dto.name !== undefined) tag.name = dto.name.trim();
    if (dto.description !== undefined) tag.description = dto.description ?? null;
    if (dto.color !== undefined) tag.color = dto.color?.toUpperCase() ?? null;
    if (dto.is_active !== undefined) tag.isActive = dto.is_active;
    await this.save(workspaceId, tag);
    return this.withCount(workspaceId, tag);
  }

  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    if (!(await this.tags.delete(workspaceId, { id }))) throw AppException.notFound('Tag');
  }

  private async find(workspaceId: WorkspaceId, id: string): Promise<ContactTag> {
    const tag = await this.tags.findById(workspaceId, id);
    if (!tag) throw AppException.notFound('Tag');
    return tag;
  }

  private async save(workspaceId: WorkspaceId, tag: ContactTag): Promise<void> {
    try {
      await this.tags.save(workspaceId, tag);
    } catch (err) {
      if (isPgError(err, PG_UNIQUE_VIOLATION)) throw AppException.conflict(NAME_TAKEN);
      throw err;
    }
  }
}
