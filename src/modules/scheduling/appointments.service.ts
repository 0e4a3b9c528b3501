import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { isPgError, PG_EXCLUSION_VIOLATION } from '@/common/persistence/pg-errors';
import { Contact } from '@/modules/contacts/contact.entity';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { OutboxService } from '@/modules/events/outbox.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Appointment, AppointmentStatus, CustomAnswers } from './appointment.entity';
import { AppointmentsRepository } from './appointments.repository';
import {
  AppointmentResponse,
  ContactRef,
  CreateAppointmentDto,
  ListAppointmentsQuery,
  UpdateAppointmentDto,
} from './dto/appointment.dto';
import { Schedule } from './schedule.entity';
import { checkAnswers, parseDay } from './schedule-rules';
import { SchedulesService } from './schedules.service';

const OVERLAP = 'The time overlaps another appointment of this schedule';
const DAY_MS = 86_400_000;

export function contactRef(c: Contact | undefined): ContactRef | null {
  return c
    ? { id: c.seq, uuid: c.id, name: c.name, surname: c.surname, email: c.email, phone_number: c.phoneNumber }
    : null;
}

/** `start_date` and `end_date` (inclusive days, UTC) as a half-open range on start_time. */
export function dayRange(start?: string, end?: string): { from?: Date; before?: Date } {
  const from = start ? (parseDay(start) ?? undefined) : undefined;
  const last = end ? parseDay(end) : null;
  if (from && last && last < from)
    throw AppException.invalid('end_date', 'end_date must not be before start_date', 'VALIDATION_ERROR');
  return { from, before: last ? new Date(last.getTime() + DAY_MS) : undefined };
}

@Injectable()
export class AppointmentsService {
  constructor(
    private readonly appointments: AppointmentsRepository,
    private readonly schedules: SchedulesService,
    private readonly contacts: ContactsService,
    private readonly unitOfWork: UnitOfWork,
    private readonly outbox: OutboxService,
  ) {}

  /** Stores a new appointment with its `appointment_created` event, in the caller's transaction or its own. */
  private async storeNew(workspaceId: WorkspaceId, a: Appointment, manager?: EntityManager): Promise<void> {
    const work = async (tx: EntityManager) => {
      await this.store(workspaceId, a, tx);
      await this.outbox.record(tx, workspaceId, [
        {
          type: 'appointment_created',
          agentId: null,
          data: { appointment: await this.toResponse(workspaceId, a) },
        },
      ]);
    };
    await (manager ? work(manager) : this.unitOfWork.run(work));
  }

  /** Responses with the embedded schedule and contact, loaded in two queries. */
  async toResponses(workspaceId: WorkspaceId, rows: Appointment[]): Promise<AppointmentResponse[]> {
    const schedules = await this.schedules.findMany(
      workspaceId,
      rows.map((a) => a.scheduleId),
    );
    const contacts = await this.contacts.findMany(
      workspaceId,
      rows.map((a) => a.contactId).filter((c): c is string => !!c),
    );
    const scheduleById = new Map(schedules.map((s) => [s.id, s]));
    const contactById = new Map(contacts.map((c) => [c.id, c]));
    return rows.map((a) => {
      const s = scheduleById.get(a.scheduleId) as Schedule;
      return {
        uuid: a.id,
        title: a.title,
        description: a.description,
        notes: a.notes,
        start_time: a.startTime?.toISOString() ?? null,
        end_time: a.endTime?.toISOString() ?? null,
        status: a.status,
        schedule_uuid: a.scheduleId,
        schedule: { id: s.seq, uuid: s.id, name: s.name },
        contact_uuid: a.contactId,
        contact: a.contactId ? contactRef(contactById.get(a.contactId)) : null,
        custom_answers: a.customAnswers,
        created_at: a.createdAt.toISOString(),
        updated_at: a.updatedAt.toISOString(),
      };
    });
  }

  async toResponse(workspaceId: WorkspaceId, a: Appointment): Promise<AppointmentResponse> {
    return (await this.toResponses(workspaceId, [a]))[0];
  }

  /** Ordered by start_time (appointments without one last), then creation. */
  async list(workspaceId: WorkspaceId, q: ListAppointmentsQuery): Promise<Page<AppointmentResponse>> {
    const [rows, total] = await this.appointments.list(workspaceId, {
      scheduleId: q.schedule_uuid?.toLowerCase(),
      contactId: q.contact_uuid?.toLowerCase(),
      status: q.status,
      ...dayRange(q.start_date, q.end_date),
      ...skipTake(q),
    });
    return pageOf(await this.toResponses(workspaceId, rows), total, q);
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<Appointment> {
    const appointment = await this.appointments.findById(workspaceId, id);
    if (!appointment) throw AppException.notFound('Appointment');
    return appointment;
  }

  findMany(workspaceId: WorkspaceId, ids: string[]): Promise<Appointment[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.appointments.find(workspaceId, { where: { id: In([...new Set(ids)]) } });
  }

  async create(workspaceId: WorkspaceId, dto: CreateAppointmentDto): Promise<Appointment> {
    const schedule = await this.schedules.reference(workspaceId, dto.schedule_uuid.toLowerCase());
    const contactId = dto.contact_uuid ? await this.contactReference(workspaceId, dto.contact_uuid) : null;
    const start = dto.start_time ? new Date(dto.start_time) : null;
    const end = dto.end_time ? new Date(dto.end_time) : null;
    if (end && !start)
      throw AppException.invalid(
        'start_time',
        'start_time is required when end_time is given',
        'VALIDATION_ERROR',
      );
    const times = start ? await this.withEnd(workspaceId, schedule, start, end) : { start: null, end: null };
    const answers = dto.custom_answers ?? {};
    const errors = checkAnswers(schedule.customQuestions, answers, true);
    if (errors.length) throw AppException.validation(errors);
    const appointment = this.appointments.build(workspaceId, {
      scheduleId: schedule.id,
      contactId,
      title: dto.title.trim(),
      description: dto.description ?? null,
      notes: dto.notes ?? null,
      startTime: times.start,
      endTime: times.end,
      status: dto.status ?? 'pending',
      customAnswers: answers as CustomAnswers,
    });
    await this.storeNew(workspaceId, appointment);
    return appointment;
  }

  /**
   * Inside the caller's transaction (request conversion): the exclusion constraint refuses an overlap, and the
   * whole transaction is rolled back.
   */
  async createInTransaction(
    workspaceId: WorkspaceId,
    data: Pick<
      Appointment,
      | 'scheduleId'
      | 'contactId'
      | 'title'
      | 'description'
      | 'notes'
      | 'startTime'
      | 'endTime'
      | 'customAnswers'
    > & { status: AppointmentStatus },
    manager: EntityManager,
  ): Promise<Appointment> {
    const appointment = this.appointments.build(workspaceId, data);
    await this.storeNew(workspaceId, appointment, manager);
    return appointment;
  }

  /**
   * Only the keys sent change. Moving start_time alone keeps the appointment's length; end_time must end up
   * after start_time.
   */
  async update(workspaceId: WorkspaceId, id: string, dto: UpdateAppointmentDto): Promise<Appointment> {
    const a = await this.get(workspaceId, id);
    const schedule = dto.schedule_uuid
      ? await this.schedules.reference(workspaceId, dto.schedule_uuid.toLowerCase())
      : await this.schedules.get(workspaceId, a.scheduleId);
    if (dto.contact_uuid !== undefined)
      a.contactId = dto.contact_uuid ? await this.contactReference(workspaceId, dto.contact_uuid) : null;
    if (dto.start_time !== undefined || dto.end_time !== undefined) {
      const start = dto.start_time ? new Date(dto.start_time) : a.startTime;
      let end = dto.end_time ? new Date(dto.end_time) : null;
      if (!end && a.startTime && a.endTime && start)
        end = new Date(start.getTime() + (a.endTime.getTime() - a.startTime.getTime()));
      if (!start)
        throw AppException.invalid(
          'start_time',
          'start_time is required when end_time is given',
          'VALIDATION_ERROR',
        );
      const times = await this.withEnd(workspaceId, schedule, start, end);
      a.startTime = times.start;
      a.endTime = times.end;
    }
    // Moving to another schedule checks the answers (sent or kept) against its questions, as a create would.
    const moving = schedule.id !== a.scheduleId;
    if (dto.custom_answers !== undefined || moving) {
      const answers = (dto.custom_answers ?? a.customAnswers ?? {}) as Record<string, unknown>;
      const errors = checkAnswers(schedule.customQuestions, answers, moving);
      if (errors.length) throw AppException.validation(errors);
      a.customAnswers = answers as CustomAnswers;
    }
    a.scheduleId = schedule.id;
    if (dto.title !== undefined) a.title = dto.title.trim();
    if (dto.description !== undefined) a.description = dto.description ?? null;
    if (dto.notes !== undefined) a.notes = dto.notes ?? null;
    if (dto.status !== undefined) a.status = dto.status;
    await this.store(workspaceId, a);
    return a;
  }

  /** Any status may follow any other; leaving `cancelled` is refused (409) if the slot was taken meanwhile. */
  async setStatus(workspaceId: WorkspaceId, id: string, status: AppointmentStatus): Promise<Appointment> {
    const a = await this.get(workspaceId, id);
    a.status = status;
    await this.store(workspaceId, a);
    return a;
  }

  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    if (!(await this.appointments.delete(workspaceId, { id }))) throw AppException.notFound('Appointment');
  }

  /** end_time as given (after start_time), or start_time plus the schedule's availability-type duration. */
  async withEnd(
    workspaceId: WorkspaceId,
    schedule: Schedule,
    start: Date,
    end: Date | null,
  ): Promise<{ start: Date; end: Date }> {
    if (end) {
      if (end.getTime() <= start.getTime())
        throw AppException.invalid('end_time', 'end_time must be after start_time', 'VALIDATION_ERROR');
      return { start, end };
    }
    const minutes = await this.schedules.durationMinutes(workspaceId, schedule);
    if (!minutes)
      throw AppException.invalid(
        'end_time',
        'end_time is required: the schedule has no availability type to take a duration from',
        'VALIDATION_ERROR',
      );
    return { start, end: new Date(start.getTime() + minutes * 60_000) };
  }

  private async contactReference(workspaceId: WorkspaceId, uuid: string): Promise<string> {
    const contact = await this.contacts.find(workspaceId, uuid.toLowerCase());
    if (!contact)
      throw AppException.invalid('contact_uuid', 'contact_uuid does not name a contact', 'VALIDATION_ERROR');
    return contact.id;
  }

  private async store(workspaceId: WorkspaceId, a: Appointment, manager?: EntityManager): Promise<void> {
    try {
      await this.appointments.save(workspaceId, a, manager);
    } catch (err) {
      if (isPgError(err, PG_EXCLUSION_VIOLATION)) throw AppException.conflict(OVERLAP);
      throw err;
    }
  }
}
