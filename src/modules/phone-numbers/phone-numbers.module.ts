import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentBindingsView } from './agent-bindings.section';
import { MessengerPage, PhoneNumber, PhoneNumberBinding } from './phone-number.entity';
import { PhoneNumbersController } from './phone-numbers.controller';
import {
  MessengerPagesRepository,
  PhoneNumberBindingsRepository,
  PhoneNumbersRepository,
} from './phone-numbers.repository';
import { PhoneNumbersService } from './phone-numbers.service';
import { ChannelBindingsService } from './channel-bindings.service';
import { ExternalNumbersService } from './external-numbers.service';
import { PhoneNumberInventoryService } from './phone-number-inventory.service';
import { NumberInventoryModule } from '@/providers/numbers/number-inventory.module';
import { WhatsappNumber, WhatsappNumbersRepository } from './whatsapp-sender';

@Module({
  imports: [
    TypeOrmModule.forFeature([PhoneNumber, PhoneNumberBinding, MessengerPage, WhatsappNumber]),
    NumberInventoryModule,
  ],
  controllers: [PhoneNumbersController],
  providers: [
    PhoneNumbersRepository,
    PhoneNumberBindingsRepository,
    MessengerPagesRepository,
    WhatsappNumbersRepository,
    PhoneNumbersService,
    ChannelBindingsService,
    ExternalNumbersService,
    PhoneNumberInventoryService,
    AgentBindingsView,
  ],
  exports: [PhoneNumbersService, ChannelBindingsService, ExternalNumbersService, AgentBindingsView],
})
export class PhoneNumbersModule {}
