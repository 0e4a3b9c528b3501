import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ActionLogEntry } from './action-log.entity';
import { ActionLog } from './action-log.service';
import { ActionLogsRepository } from './action-logs.repository';

/** The request and action logs of §15.4. Other modules import it to write action rows. */
@Module({
  imports: [TypeOrmModule.forFeature([ActionLogEntry])],
  providers: [ActionLogsRepository, ActionLog],
  exports: [ActionLog, ActionLogsRepository],
})
export class LogsModule {}
