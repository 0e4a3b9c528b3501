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
import { CallControl } from './api/call-control.service';
import { CallEndListeners } from './call-end.port';
import { CallInstance } from './runtime/call-instance';
import { CallKeypad } from './runtime/call-keypad.service';
import { CallLifecycle } from './runtime/call-lifecycle.service';
import { CallLive } from './runtime/call-live';
import { CallRecordings } from './api/call-recordings.service';
import { CallActions } from './api/call-actions.service';
import { CallRuntime } from './runtime/call-runtime.service';
import { CallTimers } from './runtime/call-timers.service';
import { CallSimulation } from './api/call-simulation.service';
import { CallSlots } from './runtime/call-slots';
import { CallsController } from './api/calls.controller';
import { CallsRepository } from './calls.repository';
import { CallPlacement } from './api/call-placement.service';
import { InboundCalls } from './api/inbound-calls.service';
import { CallsService } from './api/calls.service';
import { CallVoicemail } from './runtime/call-voicemail.service';

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
