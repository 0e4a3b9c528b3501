import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ActionLogEntry } from './action-log.entity';
import { ActionLog } from './action-log.service';
import { ActionLogsRepository } from './action-logs.repository';
import { LogsController } from './logs.controller';
import { LogsService } from './logs.service';
import { RequestLogBuffer } from './request-log-buffer';
import { RequestLogEntry } from './request-log.entity';
import { ApiRequestLogMiddleware } from './request-log.middleware';
import { RequestLogsRepository } from './request-logs.repository';

/** The request and action logs of §15.4. Other modules import it to write action rows. */
@Module({
  imports: [TypeOrmModule.forFeature([ActionLogEntry, RequestLogEntry])],
  controllers: [LogsController],
  providers: [
    ActionLogsRepository,
    ActionLog,
    RequestLogsRepository,
    RequestLogBuffer,
    ApiRequestLogMiddleware,
    LogsService,
  ],
  exports: [ActionLog, RequestLogsRepository, ApiRequestLogMiddleware, RequestLogBuffer],
})
export class LogsModule {}
