import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, PageQuery, pageOf, skipTake } from '@/common/http/pagination';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ContactsRepository } from './contacts.repository';
import { CreateStageDto, StageResponse, UpdateStageDto } from './dto/stage.dto';
import { PipelineStage } from './pipeline-stage.entity';
import { StagesRepository } from './stages.repository';

@Injectable()
export class StagesService {
  constructor(
    private readonly stages: StagesRepository,
    private readonly contacts: ContactsRepository,
  ) {}

  private toResponse(s: PipelineStage, count: number): StageResponse {
    return {
      uuid: s.id,
      name: s.name,
      order: s.order,
      color: s.color,
      contacts_count: count,
      created_at: s.createdAt.toISOString(),
      updated_at: s.updatedAt.toISOString(),
    };
  }

  /** Stages by `order`, ties by creation. */
  async list(workspaceId: WorkspaceId, q: PageQuery): Promise<Page<StageResponse>> {
    const [rows, total] = await this.stages.findAndCount(workspaceId, {
      order: { order: 'ASC', createdAt: 'ASC', id: 'ASC' },
      ...skipTake(q),
    });
    const counts = await this.contacts.countByStage(
      workspaceId,
      rows.map((s) => s.id),
    );
    return pageOf(
      rows.map((s) => this.toResponse(s, counts.get(s.id) ?? 0)),
      total,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<StageResponse> {
    const stage = await this.find(workspaceId, id);
    const counts = await this.contacts.countByStage(workspaceId, [id]);
    return this.toResponse(stage, counts.get(id) ?? 0);
  }

  async create(workspaceId: WorkspaceId, dto: CreateStageDto): Promise<StageResponse> {
    let order = dto.order;
    // A null order means the same as none: the stage goes last.
    if (order === undefined || order === null) {
      const last = await this.stages.find(workspaceId, { order: { order: 'DESC' }, take: 1 });
      order = last.length ? last[0].order + 1 : 0;
    }
    const stage = this.stages.build(workspaceId, {
      name: dto.name.trim(),
      order,
      color: dto.color?.toUpperCase() ?? null,
    });
    await this.stages.save(workspaceId, stage);
    return this.toResponse(stage, 0);
  }

  async update(workspaceId: WorkspaceId, id: string, dto: UpdateStageDto): Promise<StageResponse> {
    const stage = await this.find(workspaceId, id);
    if (dto.name !== undefined) stage.name = dto.name.trim();
    if (dto.order !== undefined) stage.order = dto.order;
    if (dto.color !== undefined) stage.color = dto.color?.toUpperCase() ?? null;
    await this.stages.save(workspaceId, stage);
    return this.get(workspaceId, id);
  }

  /** Contacts in the stage are left without one. */
  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    if (!(await this.stages.delete(workspaceId, { id }))) throw AppException.notFound('Pipeline stage');
  }

  private async find(workspaceId: WorkspaceId, id: string): Promise<PipelineStage> {
    const stage = await this.stages.findById(workspaceId, id);
    if (!stage) throw AppException.notFound('Pipeline stage');
    return stage;
  }
}
