import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, PageQuery, pageOf, skipTake } from '@/common/http/pagination';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AvailabilityType } from './availability-type.entity';
import { AvailabilityTypesRepository } from './availability-types.repository';
import {
  AvailabilityTypeResponse,
  CreateAvailabilityTypeDto,
  UpdateAvailabilityTypeDto,
} from './dto/availability-type.dto';

@Injectable()
export class AvailabilityTypesService {
  constructor(private readonly types: AvailabilityTypesRepository) {}

  private toResponse(t: AvailabilityType): AvailabilityTypeResponse {
    return {
      uuid: t.id,
      name: t.name,
      duration_minutes: t.durationMinutes,
      created_at: t.createdAt.toISOString(),
      updated_at: t.updatedAt.toISOString(),
    };
  }

  async list(workspaceId: WorkspaceId, q: PageQuery): Promise<Page<AvailabilityTypeResponse>> {
    const [rows, total] = await this.types.findAndCount(workspaceId, {
      order: { createdAt: 'DESC', id: 'DESC' },
      ...skipTake(q),
    });
    return pageOf(
      rows.map((t) => this.toResponse(t)),
      total,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<AvailabilityTypeResponse> {
    return this.toResponse(await this.load(workspaceId, id));
  }

  /** For body references (422 rather than 404). */
  find(workspaceId: WorkspaceId, id: string): Promise<AvailabilityType | null> {
    return this.types.findById(workspaceId, id);
  }

  async create(workspaceId: WorkspaceId, dto: CreateAvailabilityTypeDto): Promise<AvailabilityTypeResponse> {
    const type = this.types.build(workspaceId, {
      name: dto.name.trim(),
      durationMinutes: dto.duration_minutes,
    });
    await this.types.save(workspaceId, type);
    return this.toResponse(type);
  }

  async update(
    workspaceId: WorkspaceId,
    id: string,
    dto: UpdateAvailabilityTypeDto,
  ): Promise<AvailabilityTypeResponse> {
    const type = await this.load(workspaceId, id);
    if (dto.name !== undefined) type.name = dto.name.trim();
    if (dto.duration_minutes !== undefined) type.durationMinutes = dto.duration_minutes;
    await this.types.save(workspaceId, type);
    return this.toResponse(type);
  }

  /** Schedules that used it are left without one. */
  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    if (!(await this.types.delete(workspaceId, { id }))) throw AppException.notFound('Availability type');
  }

  private async load(workspaceId: WorkspaceId, id: string): Promise<AvailabilityType> {
    const type = await this.types.findById(workspaceId, id);
    if (!type) throw AppException.notFound('Availability type');
    return type;
  }
}
