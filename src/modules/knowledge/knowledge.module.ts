import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentsModule } from '@/modules/agents/agents.module';
import { IdempotencyModule } from '@/modules/idempotency/idempotency.module';
import { EmbeddingsModule } from '@/providers/embeddings/embeddings.module';
import { TranscriptionModule } from '@/providers/transcription/transcription.module';
import { KnowledgeSource } from './data-source.entity';
import { DataSourcesController } from './data-sources.controller';
import { DataSourcesRepository } from './data-sources.repository';
import { DataSourcesService } from './data-sources.service';
import { ImportsController } from './imports.controller';
import { ImportSources } from './import-sources';
import { ImportsService, MAX_UPLOAD_BYTES } from './imports.service';
import { KnowledgeIndexRepository } from './knowledge-index.repository';
import { KnowledgeSearchRepository } from './knowledge-search.repository';
import { KnowledgeVectorsRepository } from './knowledge-vectors.repository';
import { KnowledgeController } from './knowledge.controller';
import { KnowledgeService } from './knowledge.service';
import { RecordsRepository } from './records.repository';
import { TableSearch } from './table-search.service';
import { diskUploads } from './upload-storage';

@Module({
  imports: [
    TypeOrmModule.forFeature([KnowledgeSource]),
    AgentsModule,
    IdempotencyModule,
    TranscriptionModule,
    EmbeddingsModule,
    diskUploads(MAX_UPLOAD_BYTES, 10),
  ],
  controllers: [DataSourcesController, ImportsController, KnowledgeController],
  providers: [
    DataSourcesRepository,
    RecordsRepository,
    KnowledgeIndexRepository,
    KnowledgeSearchRepository,
    KnowledgeVectorsRepository,
    DataSourcesService,
    ImportsService,
    ImportSources,
    KnowledgeService,
    TableSearch,
  ],
  exports: [KnowledgeService, ImportsService, RecordsRepository, TableSearch],
})
export class KnowledgeModule {}
