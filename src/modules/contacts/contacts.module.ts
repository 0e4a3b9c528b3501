import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '@/modules/events/events.module';
import { Contact } from './contact.entity';
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
  imports: [TypeOrmModule.forFeature([Contact, ContactTag, ContactField, PipelineStage]), EventsModule],
  // The fixed sub-paths (/contacts/tags, ...) come before /contacts/{uuid} so they are matched first.
  controllers: [TagsController, FieldsController, StagesController, ContactsController],
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
  ],
  exports: [ContactsService],
})
export class ContactsModule {}
