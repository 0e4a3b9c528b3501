import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EvaluationRecord } from './evaluation-record.entity';

@Module({
  imports: [TypeOrmModule.forFeature([EvaluationRecord])],
})
export class EvaluationModule {}
