import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { Appointment, CustomAnswers } from './appointment.entity';
import { AppointmentRequest, RequestStatus } from './appointment-request.entity';
import { AppointmentRequestsRepository } from './appointment-requests.repository';
import { AppointmentsService, contactRef, dayRange } from './appointments.service';
import {
  AppointmentRequestResponse,
  CreateAppointmentRequestDto,
  ListAppointmentRequestsQuery,
} from './dto/appointment-request.dto';
import { Schedule } from './schedule.entity';
import { checkAnswers } from './schedule-rules';
import { SchedulesService } from './schedules.service';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** The list is not paginated (the specification's shape); it answers at most this many, narrowed by dates. */
export const MAX_REQUESTS_LISTED = 1000;

/**
 * Moves of a request. approve and reject decide a pending request; cancel and convert take a pending or
 * approved one that has no appointment yet. Anything else is 409.
 */
const MOVES = {
  approve: ['pending'],
  reject: ['pending'],
  cancel: ['pending', 'approved'],
  convert: ['pending', 'approved'],
} as const satisfies Record<string, readonly RequestStatus[]>;
type Move = keyof typeof MOVES;

@Injectable()
export class AppointmentRequestsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly requests: AppointmentRequestsRepository,
    private readonly appointments: AppointmentsService,
    private readonly schedules: SchedulesService,
    private readonly contacts: ContactsService,
  ) {}

  async toResponses(
    workspaceId: WorkspaceId,
    rows: AppointmentRequest[],
  ): Promise<AppointmentRequestResponse[]> {
    const schedules = await this.schedules.findMany(
      workspaceId,
      rows.map((r) => r.scheduleId),
    );
    const contacts = await this.contacts.findMany(
      workspaceId,
      rows.map((r) => r.contactId).filter((c): c is string => !!c),
    );
    const linked = await this.appointments.findMany(
      workspaceId,
      rows.map((r) => r.appointmentId).filter((a): a is string => !!a),
    );
    const appointmentResponses = await this.appointments.toResponses(workspaceId, linked);
    const scheduleById = new Map(schedules.map((s) => [s.id, s]));
    const contactById = new Map(contacts.map((c) => [c.id, c]));
    const appointmentById = new Map(appointmentResponses.map((a) => [a.uuid, a]));
    return rows.map((r) => {
      const s = scheduleById.get(r.scheduleId) as Schedule;
      return {
        uuid: r.id,
        title: r.title,
        description: r.description,
        notes: r.notes,
        start_time: r.startTime.toISOString(),
        end_time: r.endTime.toISOString(),
        status: r.status,
        approval_note: r.approvalNote,
        rejection_reason: r.rejectionReason,
        schedule_uuid: r.scheduleId,
        schedule: { id: s.seq, uuid: s.id, name: s.name },
        contact_uuid: r.contactId,
        contact: r.contactId ? contactRef(contactById.get(r.contactId)) : null,
        custom_answers: r.customAnswers,
        appointment: r.appointmentId ? (appointmentById.get(r.appointmentId) ?? null) : null,
        decided_at: r.decidedAt?.toISOString() ?? null,
        created_at: r.createdAt.toISOString(),
        updated_at: r.updatedAt.toISOString(),
      };
    });
  }

  async toResponse(workspaceId: WorkspaceId, r: AppointmentRequest): Promise<AppointmentRequestResponse> {
    return (await this.toResponses(workspaceId, [r]))[0];
  }

  /** Ordered for review: by start_time, then creation. */
  async list(
    workspaceId: WorkspaceId,
    q: ListAppointmentRequestsQuery,
  ): Promise<AppointmentRequestResponse[]> {
    const { from, before } = dayRange(q.start_date, q.end_date);
    const rows = await this.requests.list(
      workspaceId,
      { status: q.status, scheduleId: q.schedule_uuid?.toLowerCase(), from, before },
      MAX_REQUESTS_LISTED,
    );
    return this.toResponses(workspaceId, rows);
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<AppointmentRequest> {
    const request = await this.requests.findById(workspaceId, id);
    if (!request) throw AppException.notFound('Appointment request');
    return request;
  }

  /** The contact is named by uuid, or by name and email (the contact with that email, created when new). */
  async create(workspaceId: WorkspaceId, dto: CreateAppointmentRequestDto): Promise<AppointmentRequest> {
    const schedule = await this.schedules.reference(workspaceId, dto.schedule_uuid.toLowerCase());
    const start = new Date(dto.start_time);
    if (start.getTime() <= Date.now())
      throw AppException.invalid('start_time', 'start_time must be in the future', 'VALIDATION_ERROR');
    const times = await this.appointments.withEnd(
      workspaceId,
      schedule,
      start,
      dto.end_time ? new Date(dto.end_time) : null,
    );
    let contactId: string | null = null;
    if (dto.contact_uuid) {
      const contact = await this.contacts.find(workspaceId, dto.contact_uuid.toLowerCase());
      if (!contact)
        throw AppException.invalid(
          'contact_uuid',
          'contact_uuid does not name a contact',
          'VALIDATION_ERROR',
        );
      contactId = contact.id;
    } else if (!dto.contact_name && !dto.contact_email) {
      throw AppException.invalid(
        'contact_uuid',
        'contact_uuid, or contact_name and contact_email, is required',
        'VALIDATION_ERROR',
      );
    } else if (!dto.contact_email) {
      throw AppException.invalid(
        'contact_email',
        'contact_email is required with contact_name',
        'VALIDATION_ERROR',
      );
    } else if (!dto.contact_name) {
      throw AppException.invalid(
        'contact_name',
        'contact_name is required with contact_email',
        'VALIDATION_ERROR',
      );
    }
    const answers = dto.custom_answers ?? {};
    const errors = checkAnswers(schedule.customQuestions, answers, true);
    if (errors.length) throw AppException.validation(errors);

    return this.unitOfWork.run(async (m) => {
      if (!contactId) {
        const contact = await this.contacts.findOrCreateByEmail(
          workspaceId,
          { name: dto.contact_name as string, email: dto.contact_email as string },
          m,
        );
        contactId = contact.id;
      }
      const request = this.requests.build(workspaceId, {
        scheduleId: schedule.id,
        contactId,
        title: dto.title.trim(),
        description: dto.description ?? null,
        notes: dto.notes ?? null,
        startTime: times.start,
        endTime: times.end,
        status: 'pending',
        customAnswers: answers as CustomAnswers,
      });
      await this.requests.save(workspaceId, request, m);
      return request;
    });
  }

  approve(workspaceId: WorkspaceId, id: string, note?: string): Promise<AppointmentRequest> {
    return this.move(workspaceId, id, 'approve', async (r) => {
      r.status = 'approved';
      r.approvalNote = note ?? null;
      r.decidedAt = new Date();
    });
  }

  reject(workspaceId: WorkspaceId, id: string, reason?: string): Promise<AppointmentRequest> {
    return this.move(workspaceId, id, 'reject', async (r) => {
      r.status = 'rejected';
      r.rejectionReason = reason ?? null;
      r.decidedAt = new Date();
    });
  }

  cancel(workspaceId: WorkspaceId, id: string): Promise<AppointmentRequest> {
    return this.move(workspaceId, id, 'cancel', async (r) => {
      r.status = 'cancelled';
      r.decidedAt = new Date();
    });
  }

  /** Creates the appointment and marks the request approved, in one transaction; an overlap undoes both (409). */
  async convert(workspaceId: WorkspaceId, id: string): Promise<Appointment> {
    let created: Appointment | undefined;
    await this.move(workspaceId, id, 'convert', async (r, m) => {
      created = await this.appointments.createInTransaction(
        workspaceId,
        {
          scheduleId: r.scheduleId,
          contactId: r.contactId,
          title: r.title,
          description: r.description,
          notes: r.notes,
          startTime: r.startTime,
          endTime: r.endTime,
          customAnswers: r.customAnswers,
          status: 'approved',
        },
        m,
      );
      const now = new Date();
      r.status = 'approved';
      r.appointmentId = created.id;
      r.convertedAt = now;
      r.decidedAt ??= now;
    });
    return created as Appointment;
  }

  /** Locks the request, checks the move is allowed from its state, applies it and saves, in one transaction. */
  private move(
    workspaceId: WorkspaceId,
    id: string,
    move: Move,
    apply: (r: AppointmentRequest, m: EntityManager) => Promise<void>,
  ): Promise<AppointmentRequest> {
    return this.unitOfWork.run(async (m) => {
      const r = await this.requests.findForUpdate(workspaceId, id, m);
      if (!r) throw AppException.notFound('Appointment request');
      const allowed: readonly RequestStatus[] = MOVES[move];
      if (r.appointmentId || r.convertedAt)
        throw AppException.conflict(
          `Cannot ${move} a request that was already converted into an appointment`,
        );
      if (!allowed.includes(r.status))
        throw AppException.conflict(
          `Cannot ${move} a request that is ${r.status} (only from ${allowed.join(' or ')})`,
        );
      await apply(r, m);
      await this.requests.save(workspaceId, r, m);
      return r;
    });
  }
}
