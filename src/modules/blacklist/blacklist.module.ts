import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { BlacklistController } from './blacklist.controller';
import { BlacklistEntry } from './blacklist-entry.entity';
import { BlacklistRepository } from './blacklist.repository';
import { BlacklistService } from './blacklist.service';

@Module({
  imports: [TypeOrmModule.forFeature([BlacklistEntry]), ContactsModule],
  controllers: [BlacklistController],
  providers: [BlacklistRepository, BlacklistService],
  exports: [BlacklistService],
})
export class BlacklistModule {}
