import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import {
  Capabilities,
  MessengerPage,
  NumberChannel,
  PhoneNumber,
  PhoneNumberBinding,
} from './phone-number.entity';

export interface BindingRow {
  phone_number_id: string;
  channel: NumberChannel;
  agent_id: string;
  agent_name: string;
  created_at: Date;
}

export interface AgentBindingRow {
  agent_id: string;
  channel: NumberChannel;
  created_at: Date;
  phone_number_id: string;
  number: string;
  provider: string;
  status: string;
  country_code: string | null;
  type: string | null;
  capabilities: Capabilities;
}

@Injectable()
export class PhoneNumbersRepository extends WorkspaceScopedRepository<PhoneNumber> {
  constructor(@InjectRepository(PhoneNumber) repo: Repository<PhoneNumber>) {
    super(repo);
  }
}

@Injectable()
export class PhoneNumberBindingsRepository extends WorkspaceScopedRepository<PhoneNumberBinding> {
  constructor(@InjectRepository(PhoneNumberBinding) repo: Repository<PhoneNumberBinding>) {
    super(repo);
  }

  /** Bindings of the given numbers with the serving agent's name (for the channel snapshots). */
  withAgents(workspaceId: string, phoneNumberIds: string[]): Promise<BindingRow[]> {
    if (!phoneNumberIds.length) return Promise.resolve([]);
    return this.repo.query(
      `SELECT b.phone_number_id, b.channel, b.agent_id, a.name AS agent_name, b.created_at
         FROM phone_number_bindings b JOIN agents a ON a.id = b.agent_id
        WHERE b.workspace_id = $1 AND b.phone_number_id = ANY($2::uuid[])`,
      [workspaceId, phoneNumberIds],
    );
  }

  /** Bindings of the given agents with their numbers, oldest first. */
  forAgentIds(workspaceId: string, agentIds: string[]): Promise<AgentBindingRow[]> {
    return this.repo.query(
      `SELECT b.agent_id, b.channel, b.created_at, p.id AS phone_number_id, p.number, p.provider, p.status,
              p.country_code, p.type, p.capabilities
         FROM phone_number_bindings b JOIN phone_numbers p ON p.id = b.phone_number_id
        WHERE b.workspace_id = $1 AND b.agent_id = ANY($2::uuid[])
        ORDER BY b.created_at, b.channel`,
      [workspaceId, agentIds],
    );
  }

  /** Inserts unless the number's channel is taken; answers the agent holding it when it is. */
  async claim(
    workspaceId: string,
    binding: PhoneNumberBinding,
    manager: EntityManager,
  ): Promise<{ taken: false } | { taken: true; agentId: string }> {
    const inserted = (await manager.query(
      `INSERT INTO phone_number_bindings (id, workspace_id, phone_number_id, agent_id, channel)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (phone_number_id, channel) DO NOTHING RETURNING id`,
      [binding.id, workspaceId, binding.phoneNumberId, binding.agentId, binding.channel],
    )) as unknown[];
    if (inserted.length) return { taken: false };
    const holder = await this.findOne(
      workspaceId,
      { phoneNumberId: binding.phoneNumberId, channel: binding.channel },
      {},
      manager,
    );
    return { taken: true, agentId: holder?.agentId ?? '' };
  }
}

@Injectable()
export class MessengerPagesRepository extends WorkspaceScopedRepository<MessengerPage> {
  constructor(@InjectRepository(MessengerPage) repo: Repository<MessengerPage>) {
    super(repo);
  }

  /** The page row, created unbound when new, locked so that two binds of one page cannot both win. */
  async ensureLocked(
    workspaceId: string,
    page: { id: string; pageId: string; pageName: string | null },
    manager: EntityManager,
  ): Promise<MessengerPage> {
    await manager.query(
      `INSERT INTO messenger_pages (id, workspace_id, page_id, page_name) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, page_id) DO NOTHING`,
      [page.id, workspaceId, page.pageId, page.pageName],
    );
    return (await this.lockByPageId(workspaceId, page.pageId, manager))!;
  }

  private lockByPageId(
    workspaceId: string,
    pageId: string,
    manager: EntityManager,
  ): Promise<MessengerPage | null> {
    return this.inTransaction(manager)
      .createQueryBuilder('p')
      .setLock('pessimistic_write')
      .where('p.workspace_id = :workspaceId AND p.page_id = :pageId', { workspaceId, pageId })
      .getOne();
  }
}
