import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { Rule } from './outbound.entities';

@Injectable()
export class RulesRepository extends WorkspaceScopedRepository<Rule> {
  constructor(@InjectRepository(Rule) repo: Repository<Rule>) {
    super(repo);
  }
}
