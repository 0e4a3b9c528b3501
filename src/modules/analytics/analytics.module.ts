import { Module } from '@nestjs/common';
import { WorkspacesModule } from '@/modules/workspaces/workspaces.module';
import { AggregatesService } from './aggregates.service';
import { AnalyticsController } from './analytics.controller';
import { AggregatesRepository } from './aggregates.repository';
import { MessageExportRepository } from './message-export.repository';
import { MessageExportService } from './message-export.service';

/** Analytics: a read model over the conversation tables (message export and aggregates); it writes nothing. */
@Module({
  imports: [WorkspacesModule],
  controllers: [AnalyticsController],
  providers: [MessageExportRepository, AggregatesRepository, MessageExportService, AggregatesService],
})
export class AnalyticsModule {}
