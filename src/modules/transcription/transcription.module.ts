import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBoxModule } from '@/common/crypto/secret-box';
import { AgentsModule } from '@/modules/agents/agents.module';
import { ContactsModule } from '@/modules/contacts/contacts.module';
import { ConversationsModule } from '@/modules/conversations/conversations.module';
import { EvaluationModule } from '@/modules/evaluation/evaluation.module';
import { EventsModule } from '@/modules/events/events.module';
import { IdempotencyModule } from '@/modules/idempotency/idempotency.module';
import { diskUploads } from '@/modules/knowledge/upload-storage';
import { TranscriptionModule as SpeechToTextModule } from '@/providers/transcription/transcription.module';
import { MAX_AUDIO_BYTES } from './dto/requests';
import { TranscriptionRunner } from './transcription-runner.service';
import { Transcription } from './transcription.entity';
import { TranscriptionsController } from './transcriptions.controller';
import { TranscriptionsRepository } from './transcriptions.repository';
import { TranscriptionsService } from './transcriptions.service';

/** §14: recorded calls to transcript, with QA through the built evaluation. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Transcription]),
    SecretBoxModule,
    AgentsModule,
    ContactsModule,
    ConversationsModule,
    EvaluationModule,
    EventsModule,
    IdempotencyModule,
    SpeechToTextModule,
    diskUploads(MAX_AUDIO_BYTES, 20),
  ],
  controllers: [TranscriptionsController],
  providers: [TranscriptionsRepository, TranscriptionsService, TranscriptionRunner],
  exports: [TranscriptionsService, TranscriptionRunner],
})
export class TranscriptionsModule {}
