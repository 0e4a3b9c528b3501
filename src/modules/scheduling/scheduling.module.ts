import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentsModule } from '@/modules/agents/agents.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { EventsModule } from '@/modules/events/events.module';
import { Appointment } from './appointment.entity';
import { AppointmentRequest } from './appointment-request.entity';
import { AppointmentRequestsController } from './appointment-requests.controller';
import { AppointmentRequestsRepository } from './appointment-requests.repository';
import { AppointmentRequestsService } from './appointment-requests.service';
import { AppointmentsController } from './appointments.controller';
import { AppointmentsRepository } from './appointments.repository';
import { AppointmentsService } from './appointments.service';
import { AvailabilityType } from './availability-type.entity';
import { AvailabilityTypesController } from './availability-types.controller';
import { AvailabilityTypesRepository } from './availability-types.repository';
import { AvailabilityTypesService } from './availability-types.service';
import { Schedule } from './schedule.entity';
import { SchedulesController } from './schedules.controller';
import { SchedulesRepository } from './schedules.repository';
import { SchedulesService } from './schedules.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([AvailabilityType, Schedule, Appointment, AppointmentRequest]),
    AgentsModule,
    ContactsModule,
    EventsModule,
  ],
  controllers: [
    AvailabilityTypesController,
    SchedulesController,
    AppointmentsController,
    AppointmentRequestsController,
  ],
  providers: [
    AvailabilityTypesRepository,
    SchedulesRepository,
    AppointmentsRepository,
    AppointmentRequestsRepository,
    AvailabilityTypesService,
    SchedulesService,
    AppointmentsService,
    AppointmentRequestsService,
  ],
  exports: [SchedulesService, AppointmentsService],
})
export class SchedulingModule {}
