import { Module } from '@nestjs/common';
import { UsageModule } from '@/modules/usage/usage.module';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BlacklistModule } from '@/modules/blacklist/blacklist.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { EventsModule } from '@/modules/events/events.module';
import { PhoneNumbersModule } from '@/modules/phone-numbers/phone-numbers.module';
import { RuntimeModule } from '@/modules/runtime/runtime.module';
import { SipDirectoryModule } from '@/modules/sip/sip-directory';
import { TelephonyModule } from '@/providers/telephony/telephony.module';
import { Call } from './call.entity';
import { CallControl } from './call-control.service';
import { CallEndListeners } from './call-end.port';
import { CallInstance } from './call-instance';
import { CallKeypad } from './call-keypad.service';
import { CallLifecycle } from './call-lifecycle.service';
import { CallLive } from './call-live';
import { CallRecordings } from './call-recordings.service';
import { CallActions } from './call-actions.service';
import { CallRuntime } from './call-runtime.service';
import { CallTimers } from './call-timers.service';
import { CallSimulation } from './call-simulation.service';
import { CallSlots } from './call-slots';
import { CallsController } from './calls.controller';
import { CallsRepository } from './calls.repository';
import { CallPlacement } from './call-placement.service';
import { InboundCalls } from './inbound-calls.service';
import { CallsService } from './calls.service';
import { CallVoicemail } from './call-voicemail.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([Call]),
    ConversationsModule,
    RuntimeModule,
    UsageModule,
    ContactsModule,
    PhoneNumbersModule,
    BlacklistModule,
    EventsModule,
    TelephonyModule,
    SipDirectoryModule,
  ],
  controllers: [CallsController],
  providers: [
    CallsRepository,
    CallsService,
    CallPlacement,
    InboundCalls,
    CallLifecycle,
    CallRuntime,
    CallActions,
    // Bound to the intents' CALL_KEYPAD port (the `send_dtmf` tool) by PortBindingsModule.
    CallKeypad,
    // Filled by the CALL_END_LISTENERS binding in PortBindingsModule.
    CallEndListeners,
    CallTimers,
    CallControl,
    CallSimulation,
    CallSlots,
    CallLive,
    CallInstance,
    CallRecordings,
    CallVoicemail,
  ],
  exports: [
    CallsService,
    CallLifecycle,
    CallEndListeners,
    CallKeypad,
    CallRuntime,
    CallTimers,
    CallSlots,
    CallsRepository,
    TelephonyModule,
    CallPlacement,
    InboundCalls,
    CallRecordings,
    CallLive,
    CallInstance,
    CallVoicemail,
    PhoneNumbersModule,
    SipDirectoryModule,
  ],
})
export class CallsModule {}
