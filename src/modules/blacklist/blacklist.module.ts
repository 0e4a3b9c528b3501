import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BlacklistEntry } from './blacklist-entry.entity';
import { BlacklistRepository } from './blacklist.repository';
import { BlacklistService } from './blacklist.service';

@Module({
  imports: [TypeOrmModule.forFeature([BlacklistEntry])],
  providers: [BlacklistRepository, BlacklistService],
  exports: [BlacklistService, BlacklistRepository],
})
export class BlacklistModule {}
