import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BlacklistModule } from '@/modules/blacklist/blacklist.module';
import { CallsModule } from '@/modules/calls/calls.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { EventsModule } from '@/modules/events/events.module';
import { LogsModule } from '@/modules/logs/logs.module';
import { PhoneNumbersModule } from '@/modules/phone-numbers/phone-numbers.module';
import { CampaignSlotWake } from './engine/campaign-slot-wake';
import { CampaignTasks } from './engine/campaign-tasks';
import { CampaignTransitions } from './engine/campaign-transitions';
import { CampaignWaits } from './engine/campaign-waits';
import { DispatchRepository } from './engine/dispatch.repository';
import { Dispatcher } from './engine/dispatcher.service';
import { OutboundClock } from './engine/outbound-clock';
import { TaskPoliciesRepository } from './engine/task-policies.repository';
import { TaskRunner } from './engine/task-runner';
import { TaskSettlement } from './engine/task-settlement';
import { OutboundEvents } from './outbound-events';
import { Campaign, CampaignPool, Pool, PoolMember, Rule, Task, TaskAttempt } from './outbound.entities';
import { CampaignsController } from './setup/campaigns.controller';
import { CampaignsRepository } from './setup/campaigns.repository';
import { CampaignsService } from './setup/campaigns.service';
import { ListingContactsRepository } from './setup/listing-contacts.repository';
import { ListingsController } from './setup/listings.controller';
import { ListingsService } from './setup/listings.service';
import { PoolsController } from './setup/pools.controller';
import { PoolsRepository } from './setup/pools.repository';
import { PoolsService } from './setup/pools.service';
import { RulesController } from './setup/rules.controller';
import { RulesRepository } from './setup/rules.repository';
import { RulesService } from './setup/rules.service';
import { TasksController } from './setup/tasks.controller';
import { TasksRepository } from './setup/tasks.repository';
import { TasksService } from './setup/tasks.service';

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
