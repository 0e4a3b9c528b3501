import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkspacesModule } from '@/modules/workspaces/workspaces.module';
import { ConversationUsage } from './conversation-usage.entity';
import { UsageRecorder } from './usage-recorder';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

/**
 * Usage per conversation: the recorder that outside services' reports reach (through the usage scope of
 * `providers/usage-report.ts`) and the `usage` answered on calls and conversations. No routes of its own.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ConversationUsage]), WorkspacesModule],
  providers: [UsageRepository, UsageRecorder, UsageService],
  exports: [UsageRecorder, UsageService],
})
export class UsageModule {}
