import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AgentsModule } from '@/modules/agents/agents.module';
import { IdempotencyModule } from '@/modules/idempotency/idempotency.module';
import { EmbeddingsModule } from '@/providers/embeddings/embeddings.module';
import { TranscriptionModule } from '@/providers/transcription/transcription.module';
import { DataSource } from './data-source.entity';
import { DataSourcesController } from './data-sources.controller';
import { DataSourcesRepository } from './data-sources.repository';
import { DataSourcesService } from './data-sources.service';
import { ImportsController } from './imports.controller';
import { ImportSources } from './import-sources';
import { ImportsService, MAX_UPLOAD_BYTES } from './imports.service';
import { KnowledgeIndexRepository } from './knowledge-index.repository';
import { KnowledgeVectorsRepository } from './knowledge-vectors.repository';
import { KnowledgeController } from './knowledge.controller';
import { KnowledgeService } from './knowledge.service';
import { RecordsRepository } from './records.repository';
import { TableSearch } from './table-search.service';
import { coalescingDiskStorage } from './upload-storage';

@Module({
  imports: [
    TypeOrmModule.forFeature([DataSource]),
    AgentsModule,
    IdempotencyModule,
    TranscriptionModule,
    EmbeddingsModule,
    // Uploads stream to STORAGE_DIR/uploads/tmp (never whole in memory); multer removes a file cut off at the limit.
    MulterModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => {
        const tmp = path.join(config.storageDir, 'uploads', 'tmp');
        fs.mkdirSync(tmp, { recursive: true });
        return {
          storage: coalescingDiskStorage({
            destination: tmp,
            filename: (_req, _file, cb) => cb(null, randomUUID()),
          }),
          limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, fieldSize: 64 * 1024, parts: 12 },
        };
      },
    }),
  ],
  controllers: [DataSourcesController, ImportsController, KnowledgeController],
  providers: [
    DataSourcesRepository,
    RecordsRepository,
    KnowledgeIndexRepository,
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
