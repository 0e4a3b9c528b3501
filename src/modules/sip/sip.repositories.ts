import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { PbxConnector, SipTrunkConnection, SipTrunkNumber } from './sip.entities';

@Injectable()
export class PbxConnectorsRepository extends WorkspaceScopedRepository<PbxConnector> {
  constructor(@InjectRepository(PbxConnector) repo: Repository<PbxConnector>) {
    super(repo);
  }

  /**
   * The connector that dials extensions for a call: the agent's own (outbound or both), else one whose
   * `phone_number` is the call's workspace number; the oldest first.
   */
  async forExtension(
    workspaceId: WorkspaceId,
    agentId: string | null,
    number: string,
  ): Promise<PbxConnector | null> {
    const rows = await this.query(workspaceId, 'c')
      .andWhere(`c.setup_mode IN ('outbound', 'both')`)
      .andWhere(`c.status = 'active'`)
      .andWhere('(c.agent_id = :agentId OR c.phone_number = :number)', { agentId, number })
      .orderBy('c.created_at', 'ASC')
      .addOrderBy('c.id', 'ASC')
      .take(20)
      .getMany();
    return rows.find((c) => c.agentId === agentId) ?? rows[0] ?? null;
  }
}

@Injectable()
export class SipTrunkConnectionsRepository extends WorkspaceScopedRepository<SipTrunkConnection> {
  constructor(@InjectRepository(SipTrunkConnection) repo: Repository<SipTrunkConnection>) {
    super(repo);
  }
}

export interface TrunkNumberRow {
  phone_number_id: string;
  connection_id: string | null;
  agent_id: string | null;
}

@Injectable()
export class SipTrunkNumbersRepository extends WorkspaceScopedRepository<SipTrunkNumber> {
  constructor(@InjectRepository(SipTrunkNumber) repo: Repository<SipTrunkNumber>) {
    super(repo);
  }

  /** The trunk carrying a number, or null. */
  async connectionIdOf(workspaceId: WorkspaceId, phoneNumberId: string): Promise<string | null> {
    const row = await this.findOne(workspaceId, { phoneNumberId });
    return row?.connectionId ?? null;
  }

  /** Each external number's trunk and the agent serving its call channel. */
  async details(workspaceId: WorkspaceId, phoneNumberIds: string[]): Promise<TrunkNumberRow[]> {
    if (!phoneNumberIds.length) return [];
    return this.sql<TrunkNumberRow[]>(
      `SELECT n.phone_number_id, n.connection_id, b.agent_id
         FROM sip_trunk_numbers n
         LEFT JOIN phone_number_bindings b
           ON b.phone_number_id = n.phone_number_id AND b.channel = 'call' AND b.workspace_id = n.workspace_id
        WHERE n.workspace_id = $1 AND n.phone_number_id = ANY($2::uuid[])`,
      [workspaceId, phoneNumberIds],
    );
  }

  /** Attaches a number to a trunk (or records it as external with none), in the caller's transaction. */
  async attach(
    workspaceId: WorkspaceId,
    phoneNumberId: string,
    connectionId: string | null,
    m: EntityManager,
  ): Promise<void> {
    const existing = await this.findOne(workspaceId, { phoneNumberId }, {}, m);
    if (existing) {
      existing.connectionId = connectionId;
      await this.save(workspaceId, existing, m);
    } else await this.save(workspaceId, this.build(workspaceId, { phoneNumberId, connectionId }), m);
  }
}
