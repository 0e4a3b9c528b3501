import { Module } from '@nestjs/common';
import { KnowledgeModule } from '../knowledge.module';
import { KnowledgeProcessor } from './knowledge.processor';

/** The processors of the knowledge module, loaded only where workers run. */
@Module({ imports: [KnowledgeModule], providers: [KnowledgeProcessor] })
export class KnowledgeJobsModule {}
