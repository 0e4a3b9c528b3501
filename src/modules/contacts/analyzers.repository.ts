import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { ContactAnalyzer } from './contact-analyzer.entity';

@Injectable()
export class AnalyzersRepository extends WorkspaceScopedRepository<ContactAnalyzer> {
  constructor(@InjectRepository(ContactAnalyzer) repo: Repository<ContactAnalyzer>) {
    super(repo);
  }
}
