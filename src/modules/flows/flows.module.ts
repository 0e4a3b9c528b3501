import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CallsModule } from '@/modules/calls/calls.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { EventsModule } from '@/modules/events/events.module';
import { LogsModule } from '@/modules/logs/logs.module';
import { SchedulingModule } from '@/modules/scheduling/scheduling.module';
import { FlowActions } from './actions/flow-actions';
import { Flow, FlowExecution, FlowVersion } from './flow.entity';
import { FlowClock } from './flow-clock';
import { FlowExecutionsService } from './flow-executions.service';
import { FlowHooksController } from './flow-hooks.controller';
import { FlowOwner } from './flow-owner';
import { FlowRecovery } from './flow-recovery';
import { FlowRunner } from './flow-runner';
import { FlowSchedules } from './flow-schedules';
import { FlowStarter } from './flow-starter.service';
import { FLOW_PORT_PROVIDERS } from './actions/flow-ports';
import { MessagingModule } from '@/modules/messaging/messaging.module';
import { OutboundModule } from '@/modules/outbound/outbound.module';
import { FlowStatesController } from './flow-states.controller';
import { FlowStatesService } from './flow-states.service';
import { FlowStepTests } from './flow-step-tests';
import { FlowExecutionsRepository } from './executions.repository';
import { FlowsController } from './flows.controller';
import { FlowsRepository, FlowVersionsRepository } from './flows.repository';
import { FlowsService } from './flows.service';
import { FlowDispatcher } from './triggers/flow-dispatcher';

@Module({
  imports: [
    TypeOrmModule.forFeature([Flow, FlowVersion, FlowExecution]),
    EventsModule,
    LogsModule,
    ContactsModule,
    SchedulingModule,
    ConversationsModule,
    CallsModule,
    MessagingModule,
    OutboundModule,
  ],
  controllers: [FlowsController, FlowStatesController, FlowHooksController],
  providers: [
    FlowsRepository,
    FlowVersionsRepository,
    FlowExecutionsRepository,
    FlowsService,
    FlowStatesService,
    FlowExecutionsService,
    FlowStepTests,
    FlowActions,
    FlowRunner,
    FlowOwner,
    FlowRecovery,
    FlowSchedules,
    FlowClock,
    FlowDispatcher,
    FlowStarter,
    ...FLOW_PORT_PROVIDERS,
  ],
  exports: [
    FlowStarter,
    FlowDispatcher,
    FlowRunner,
    FlowRecovery,
    FlowSchedules,
    FlowsRepository,
    FlowExecutionsRepository,
    FlowExecutionsService,
    FlowClock,
  ],
})
export class FlowsModule {}
