import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BlacklistModule } from '@/modules/blacklist/blacklist.module';
import { CallsModule } from '@/modules/calls/calls.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { EventsModule } from '@/modules/events/events.module';
import { LogsModule } from '@/modules/logs/logs.module';
import { PhoneNumbersModule } from '@/modules/phone-numbers/phone-numbers.module';
import { CampaignSlotWake } from './campaign-slot-wake';
import { CampaignTasks } from './campaign-tasks';
import { CampaignTransitions } from './campaign-transitions';
import { CampaignWaits } from './campaign-waits';
import { CampaignsController } from './campaigns.controller';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';
import { DispatchRepository } from './dispatch.repository';
import { ListingContactsRepository } from './listing-contacts.repository';
import { ListingsController } from './listings.controller';
import { ListingsService } from './listings.service';
import { Dispatcher } from './dispatcher.service';
import { OutboundClock } from './outbound-clock';
import { OutboundEvents } from './outbound-events';
import { Campaign, CampaignPool, Pool, PoolMember, Rule, Task, TaskAttempt } from './outbound.entities';
import { PoolsController } from './pools.controller';
import { PoolsRepository } from './pools.repository';
import { PoolsService } from './pools.service';
import { RulesController } from './rules.controller';
import { RulesRepository } from './rules.repository';
import { RulesService } from './rules.service';
import { TaskRunner } from './task-runner';
import { TaskSettlement } from './task-settlement';
import { TasksController } from './tasks.controller';
import { TaskPoliciesRepository } from './task-policies.repository';
import { TasksRepository } from './tasks.repository';
import { TasksService } from './tasks.service';

/**
 * Outbound (§11): pools, rules, campaigns, tasks and the dispatcher that places their calls and messages.
 * WhatsApp templates come through the OUTBOUND_TEMPLATE_SENDER port, bound to messaging's sender by PortBindingsModule.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([Pool, PoolMember, Rule, Campaign, CampaignPool, Task, TaskAttempt]),
    CallsModule,
    ContactsModule,
    ConversationsModule,
    PhoneNumbersModule,
    BlacklistModule,
    EventsModule,
    LogsModule,
  ],
  controllers: [PoolsController, RulesController, CampaignsController, TasksController, ListingsController],
  providers: [
    PoolsRepository,
    RulesRepository,
    CampaignsRepository,
    TasksRepository,
    TaskPoliciesRepository,
    DispatchRepository,
    ListingContactsRepository,
    ListingsService,
    PoolsService,
    RulesService,
    CampaignsService,
    CampaignTransitions,
    CampaignTasks,
    CampaignWaits,
    TasksService,
    OutboundEvents,
    OutboundClock,
    TaskRunner,
    TaskSettlement,
    Dispatcher,
    CampaignSlotWake,
  ],
  exports: [
    Dispatcher,
    CampaignSlotWake,
    OutboundClock,
    CampaignsService,
    CampaignTransitions,
    PoolsService,
    RulesService,
    TasksService,
  ],
})
export class OutboundModule {}
