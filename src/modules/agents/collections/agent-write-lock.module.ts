import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Agent } from '../agent.entity';
import { AgentsRepository } from '../agents.repository';
import { AgentWriteLock } from './agent-write-lock';

/**
 * The agent row lock on its own, so that a module holding part of an agent (the events module's agent webhooks)
 * writes under it without importing the agents module, which itself asks that module for those parts.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Agent])],
  providers: [AgentsRepository, AgentWriteLock],
  exports: [AgentsRepository, AgentWriteLock],
})
export class AgentWriteLockModule {}
