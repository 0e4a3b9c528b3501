import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { agentConfigVersionSql } from '@/common/persistence/agent-config-version';
import {
  insertSql,
  NewRows,
  WorkspaceScopedRepository,
} from '@/common/persistence/workspace-scoped.repository';
import { OutboxEventInput, outboxInsertFor } from '@/modules/events/public';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Conversation } from './conversation.entity';
import { CONVERSATION_COLUMNS, conversationOf, Row } from './turn-rows';

/** Conversation rows: a new conversation with its event, the filtered list, the turn's lock and read ahead. */
@Injectable()
export class ConversationsRepository extends WorkspaceScopedRepository<Conversation> {
  constructor(@InjectRepository(Conversation) repo: Repository<Conversation>) {
    super(repo);
  }

  /**
   * A new conversation with its `started` event and the new rows that belong with it (its first session, a
   * messaging line's thread), in one statement: all are written or none, and its RETURNING notifies the dispatchers.
   */
  async insertStarted(
    workspaceId: WorkspaceId,
    conversation: Conversation,
    event: OutboxEventInput,
    alongside: NewRows[],
  ): Promise<void> {
    const params: unknown[] = [];
    const [first, ...rest] = [this.newRows(workspaceId, [conversation]), ...alongside].map((rows) =>
      insertSql(rows, params),
    );
    await this.sql(
      `WITH c AS (${first} RETURNING workspace_id),
${rest.map((insert, i) => `w${i} AS (${insert}),\n`).join('')}e AS (${outboxInsertFor('c', workspaceId, [event], params)})
SELECT count(*) AS announced FROM e`,
      params,
    );
  }

  /** One page of the workspace's conversations, newest first, with the list filters. */
  list(
    workspaceId: WorkspaceId,
    f: { agent_uuid?: string; contact_uuid?: string; channel?: string; status?: string; phone?: string },
    page: { skip: number; take: number },
  ): Promise<[Conversation[], number]> {
    const qb = this.query(workspaceId, 'c');
    if (f.agent_uuid) qb.andWhere('c.agent_id = :agent', { agent: f.agent_uuid });
    if (f.contact_uuid) qb.andWhere('c.contact_id = :contact', { contact: f.contact_uuid });
    if (f.channel) qb.andWhere('c.channel = :channel', { channel: f.channel });
    if (f.status) qb.andWhere('c.status = :status', { status: f.status });
    if (f.phone) qb.andWhere('c.phone = :phone', { phone: f.phone });
    return qb
      .orderBy('c.created_at', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .skip(page.skip)
      .take(page.take)
      .getManyAndCount();
  }

  /** The conversation, locked for the rest of the transaction so turns of one conversation run one at a time. */
  async lock(workspaceId: WorkspaceId, id: string, manager: EntityManager): Promise<Conversation | null> {
    const rows = await this.sql<Row[]>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
      [workspaceId, id],
      manager,
    );
    return rows.length ? conversationOf(rows[0]) : null;
  }

  /**
   * The conversation with the workspace's agent configuration version as of this read, so a turn can reuse an
   * agent context kept under that version (AgentContextReader.forTurn).
   */
  async withConfigVersion(
    workspaceId: WorkspaceId,
    id: string,
  ): Promise<{ conversation: Conversation; agentConfigVersion: string | null } | null> {
    const rows = await this.sql<(Row & { agent_config_version: string | null })[]>(
      `SELECT ${CONVERSATION_COLUMNS}, ${agentConfigVersionSql('c')} AS agent_config_version
         FROM conversations c WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    if (!rows.length) return null;
    const { agent_config_version: version, ...row } = rows[0];
    return { conversation: conversationOf(row as Row), agentConfigVersion: version ?? null };
  }
}
