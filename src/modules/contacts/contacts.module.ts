import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '@/modules/events/events.module';
import { AnalyzersController } from './analyzers.controller';
import { AnalyzersRepository } from './analyzers.repository';
import { AnalyzersService } from './analyzers.service';
import { ApprovalsController } from './approvals.controller';
import { ApprovalsRepository } from './approvals.repository';
import { ApprovalsService } from './approvals.service';
import { Contact } from './contact.entity';
import { ContactAnalyzer } from './contact-analyzer.entity';
import { ContactApproval } from './contact-approval.entity';
import { ContactSettings } from './contact-settings.entity';
import { ContactSettingsController } from './contact-settings.controller';
import { ContactSettingsRepository } from './contact-settings.repository';
import { ContactSettingsService } from './contact-settings.service';
import { ContactInputResolver } from './contact-input.resolver';
import { ContactField } from './contact-field.entity';
import { ContactTag } from './contact-tag.entity';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';
import { FieldsController } from './fields.controller';
import { FieldsRepository } from './fields.repository';
import { FieldsService } from './fields.service';
import { PipelineStage } from './pipeline-stage.entity';
import { StagesController } from './stages.controller';
import { StagesRepository } from './stages.repository';
import { StagesService } from './stages.service';
import { TagsController } from './tags.controller';
import { TagsRepository } from './tags.repository';
import { TagsService } from './tags.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      Contact,
      ContactTag,
      ContactField,
      PipelineStage,
      ContactApproval,
      ContactAnalyzer,
      ContactSettings,
    ]),
    EventsModule,
  ],
  // The fixed sub-paths (/contacts/tags, /contacts/approvals, /contacts/settings, ...) come before
  // /contacts/{uuid} so they are matched first.
  controllers: [
    TagsController,
    FieldsController,
    StagesController,
    ApprovalsController,
    ContactSettingsController,
    AnalyzersController,
    ContactsController,
  ],
  providers: [
    ContactsRepository,
    TagsRepository,
    FieldsRepository,
    StagesRepository,
    ContactInputResolver,
    ContactsService,
    TagsService,
    FieldsService,
    StagesService,
    ApprovalsRepository,
    AnalyzersRepository,
    ContactSettingsRepository,
    ApprovalsService,
    AnalyzersService,
    ContactSettingsService,
  ],
  exports: [ContactsService, ApprovalsService, AnalyzersService],
})
export class ContactsModule {}
