import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { AppException, FieldError } from '@/common/errors/app.exception';
import { Page, PageQuery, pageOf, skipTake } from '@/common/http/pagination';
import { isPgError, PG_FOREIGN_KEY_VIOLATION } from '@/common/persistence/pg-errors';
import { AgentsService } from '@/modules/agents/agents.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AvailabilityTypesService } from './availability-types.service';
import {
  CreateScheduleDto,
  CustomQuestionDto,
  ScheduleResponse,
  UpdateScheduleDto,
} from './dto/schedule.dto';
import { Schedule, WeeklyHours } from './schedule.entity';
import { checkQuestions, checkWeeklyHours, normalizeWeeklyHours } from './schedule-rules';
import { SchedulesRepository } from './schedules.repository';

@Injectable()
export class SchedulesService {
  constructor(
    private readonly schedules: SchedulesRepository,
    private readonly types: AvailabilityTypesService,
    private readonly agents: AgentsService,
  ) {}

  toResponse(s: Schedule): ScheduleResponse {
    return {
      uuid: s.id,
      id: s.seq,
      name: s.name,
      type: s.type,
      color: s.color,
      timezone: s.timezone,
      // jsonb does not keep key order: answer the days in calendar order.
      weekly_hours: normalizeWeeklyHours(s.weeklyHours),
      availability_type_uuid: s.availabilityTypeId,
      ai_agents: s.aiAgents,
      custom_questions: s.customQuestions,
      created_at: s.createdAt.toISOString(),
      updated_at: s.updatedAt.toISOString(),
    };
  }

  async list(workspaceId: WorkspaceId, q: PageQuery): Promise<Page<ScheduleResponse>> {
    const [rows, total] = await this.schedules.findAndCount(workspaceId, {
      order: { createdAt: 'DESC', id: 'DESC' },
      ...skipTake(q),
    });
    return pageOf(
      rows.map((s) => this.toResponse(s)),
      total,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<Schedule> {
    const schedule = await this.schedules.findById(workspaceId, id);
    if (!schedule) throw AppException.notFound('Schedule');
    return schedule;
  }

  /** A schedule named in a body: unknown is 422 on that field, not 404. */
  async reference(workspaceId: WorkspaceId, id: string, field = 'schedule_uuid'): Promise<Schedule> {
    const schedule = await this.schedules.findById(workspaceId, id);
    if (!schedule) throw AppException.invalid(field, `${field} does not name a schedule`, 'VALIDATION_ERROR');
    return schedule;
  }

  findMany(workspaceId: WorkspaceId, ids: string[]): Promise<Schedule[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.schedules.find(workspaceId, { where: { id: In([...new Set(ids)]) } });
  }

  /** The default length of the schedule's appointments, from its availability type, if it has one. */
  async durationMinutes(workspaceId: WorkspaceId, schedule: Schedule): Promise<number | null> {
    if (!schedule.availabilityTypeId) return null;
    const type = await this.types.find(workspaceId, schedule.availabilityTypeId);
    return type?.durationMinutes ?? null;
  }

  async create(workspaceId: WorkspaceId, dto: CreateScheduleDto): Promise<ScheduleResponse> {
    const schedule = this.schedules.build(workspaceId, {
      name: dto.name.trim(),
      timezone: dto.timezone ?? 'UTC',
      weeklyHours: {},
      aiAgents: [],
      customQuestions: [],
    });
    await this.apply(workspaceId, schedule, dto);
    await this.schedules.save(workspaceId, schedule);
    return this.toResponse(await this.get(workspaceId, schedule.id));
  }

  async update(workspaceId: WorkspaceId, id: string, dto: UpdateScheduleDto): Promise<ScheduleResponse> {
    const schedule = await this.get(workspaceId, id);
    if (dto.name !== undefined) schedule.name = dto.name.trim();
    if (dto.timezone !== undefined) schedule.timezone = dto.timezone;
    await this.apply(workspaceId, schedule, dto);
    await this.schedules.save(workspaceId, schedule);
    return this.toResponse(await this.get(workspaceId, id));
  }

  /** A schedule with appointments or requests stays (409): they would lose their calendar. */
  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    try {
      if (!(await this.schedules.delete(workspaceId, { id }))) throw AppException.notFound('Schedule');
    } catch (err) {
      if (isPgError(err, PG_FOREIGN_KEY_VIOLATION))
        throw AppException.conflict(
          'The schedule has appointments or appointment requests; delete them before the schedule',
        );
      throw err;
    }
  }

  /** The optional fields shared by create and update, checked against the workspace. */
  private async apply(workspaceId: WorkspaceId, s: Schedule, dto: UpdateScheduleDto): Promise<void> {
    const errors: FieldError[] = [];
    if (dto.weekly_hours !== undefined) {
      errors.push(...checkWeeklyHours(dto.weekly_hours));
      if (!errors.length) s.weeklyHours = normalizeWeeklyHours(dto.weekly_hours as WeeklyHours);
    }
    if (dto.custom_questions !== undefined) {
      errors.push(...checkQuestions(dto.custom_questions.map((q) => this.question(q))));
      s.customQuestions = dto.custom_questions.map((q) => this.question(q));
    }
    if (dto.availability_type_uuid) {
      const id = dto.availability_type_uuid.toLowerCase();
      if (!(await this.types.find(workspaceId, id)))
        errors.push({
          code: 'VALIDATION_ERROR',
          field: 'availability_type_uuid',
          message: 'availability_type_uuid does not name an availability type',
        });
      s.availabilityTypeId = id;
    } else if (dto.availability_type_uuid === null) s.availabilityTypeId = null;
    if (dto.ai_agents !== undefined) {
      const ids = dto.ai_agents.map((a) => a.toLowerCase());
      for (let i = 0; i < ids.length; i++)
        if (!(await this.agents.exists(workspaceId, ids[i])))
          errors.push({
            code: 'VALIDATION_ERROR',
            field: `ai_agents.${i}`,
            message: `ai_agents.${i} does not name an agent`,
          });
      s.aiAgents = [...new Set(ids)];
    }
    if (dto.type !== undefined) s.type = dto.type ?? null;
    if (dto.color !== undefined) s.color = dto.color?.toUpperCase() ?? null;
    if (errors.length) throw AppException.validation(errors);
  }

  private question(q: CustomQuestionDto): Schedule['customQuestions'][number] {
    return {
      name: q.name.trim(),
      type: q.type,
      required: q.required ?? false,
      description: q.description ?? null,
    };
  }
}
