import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
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
  ],
  exports: [PhoneNumbersService],
})
export class PhoneNumbersModule {}
