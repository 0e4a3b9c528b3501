import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentBindingsSection } from '@/modules/agents/agent-view.sections';
import { AgentBindingsView } from './agent-bindings.section';
import { MessengerPage, PhoneNumber, PhoneNumberBinding } from './phone-number.entity';
import { PhoneNumbersController } from './phone-numbers.controller';
import {
  MessengerPagesRepository,
  PhoneNumberBindingsRepository,
  PhoneNumbersRepository,
} from './phone-numbers.repository';
import { PhoneNumbersService } from './phone-numbers.service';

@Module({
  imports: [TypeOrmModule.forFeature([PhoneNumber, PhoneNumberBinding, MessengerPage])],
  controllers: [PhoneNumbersController],
  providers: [
    PhoneNumbersRepository,
    PhoneNumberBindingsRepository,
    MessengerPagesRepository,
    PhoneNumbersService,
    { provide: AgentBindingsSection, useClass: AgentBindingsView },
  ],
  exports: [PhoneNumbersService, AgentBindingsSection],
})
export class PhoneNumbersModule {}
