import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { Agent } from './agent.entity';

@Injectable()
export class AgentsRepository extends WorkspaceScopedRepository<Agent> {
  constructor(@InjectRepository(Agent) repo: Repository<Agent>) {
    super(repo);
  }
}
