import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { agentConfigVersionSql } from '@/common/persistence/agent-config-version';
import { newId } from '@/common/persistence/base.entity';
import { Sweep } from '@/common/persistence/sweep';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { phoneBlacklistedSql } from '@/modules/blacklist/public';
import type { Channel } from '@/modules/conversations/channels';
import type { MessageViewRow } from '@/modules/conversations/dto/message-view.response';
import { MESSAGE_VIEW_SQL } from '@/modules/conversations/public';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { MessagingThread, ProviderMessage } from './messaging.entities';

/** The columns `insertNew` writes, in the order of its values (the timestamps are the database's). */
const INSERT_COLUMNS = [
  'workspace_id',
  'id',
  'conversation_id',
  'phone_number_id',
  'channel',
  'direction',
  'from_address',
  'to_address',
  'provider',
  'provider_message_id',
  'delivery_status',
  'error',
  'status_updated_at',
  'template',
  'metadata',
  'is_simulation',
] as const;

const VIEW_SQL = `${MESSAGE_VIEW_SQL} WHERE m.workspace_id = $1 AND m.id = $2`;

@Injectable()
export class ProviderMessagesRepository extends WorkspaceScopedRepository<ProviderMessage> {
  constructor(@InjectRepository(ProviderMessage) repo: Repository<ProviderMessage>) {
    super(repo);
  }

  async view(workspaceId: WorkspaceId, id: string, manager?: EntityManager): Promise<MessageViewRow | null> {
    const rows = await this.sql<MessageViewRow[]>(VIEW_SQL, [workspaceId, id], manager);
    return rows[0] ?? null;
  }

  lock(workspaceId: WorkspaceId, id: string, manager: EntityManager): Promise<ProviderMessage | null> {
    return this.query(workspaceId, 'p', manager)
      .andWhere('p.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  async setProviderId(workspaceId: WorkspaceId, id: string, providerMessageId: string): Promise<void> {
    await this.prepared(
      'provider-messages-set-provider-id',
      `UPDATE provider_messages SET provider_message_id = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id, providerMessageId],
    );
  }

  /**
   * New records of the workspace in one hand-written statement (a prepared statement per row count: every inbound
   * message writes one or two); inside a transaction, as the base class does.
   */
  override async insertNew(
    workspaceId: WorkspaceId,
    entities: ProviderMessage[],
    manager?: EntityManager,
  ): Promise<void> {
    if (manager || entities.length === 0 || entities.length > 4)
      return super.insertNew(workspaceId, entities, manager);
    if (entities.some((e) => e.workspaceId !== workspaceId))
      throw new Error('entity belongs to another workspace');
    const width = INSERT_COLUMNS.length;
    const values = entities.flatMap((e) => [
      workspaceId,
      (e.id ??= newId()),
      e.conversationId,
      e.phoneNumberId ?? null,
      e.channel,
      e.direction,
      e.fromAddress,
      e.toAddress,
      e.provider,
      e.providerMessageId ?? null,
      e.deliveryStatus,
      e.error == null ? null : JSON.stringify(e.error),
      e.statusUpdatedAt,
      e.template == null ? null : JSON.stringify(e.template),
      JSON.stringify(e.metadata ?? {}),
      e.isSimulation ?? false,
    ]);
    const tuples = entities.map(
      (_, r) => `(${INSERT_COLUMNS.map((_c, k) => `$${r * width + k + 1}`).join(', ')})`,
    );
    await this.prepared(
      `provider-messages-insert-${entities.length}`,
      `INSERT INTO provider_messages (${INSERT_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`,
      values,
    );
  }

  /** When the customer last wrote to this number on this channel, or null. */
  async lastInbound(
    workspaceId: WorkspaceId,
    phoneNumberId: string,
    channel: Channel,
    from: string,
  ): Promise<Date | null> {
    const rows = await this.sql<{ at: Date }[]>(
      `SELECT created_at AS at FROM provider_messages
        WHERE workspace_id = $1 AND phone_number_id = $2 AND channel = $3 AND from_address = $4
          AND direction = 'inbound'
        ORDER BY created_at DESC LIMIT 1`,
      [workspaceId, phoneNumberId, channel, from],
    );
    return rows[0]?.at ?? null;
  }

  /** The workspace of a message found by our id or the provider's (status callbacks carry one of them). */
  @Sweep('delivery')
  async locate(ref: { id?: string; provider?: string; providerMessageId?: string }): Promise<{
    id: string;
    workspaceId: WorkspaceId;
  } | null> {
    const rows = ref.id
      ? await this.sql<{ id: string; workspace_id: WorkspaceId }[]>(
          `SELECT id, workspace_id FROM provider_messages WHERE id = $1`,
          [ref.id],
        )
      : await this.sql<{ id: string; workspace_id: WorkspaceId }[]>(
          `SELECT id, workspace_id FROM provider_messages WHERE provider = $1 AND provider_message_id = $2`,
          [ref.provider, ref.providerMessageId],
        );
    return rows[0] ? { id: rows[0].id, workspaceId: rows[0].workspace_id } : null;
  }

  /**
   * Inbound routing in one statement: the number addressed (by the workspace's own number for the sandbox
   * simulation, Meta's phone_number_id for WhatsApp, else the provider's active number, the oldest when several),
   * the agent bound to it on the channel, whether this provider message was received already (a repeated
   * delivery), the line's active conversation with the bound agent (as `latestActive` reads it, with whether
   * the customer is on the do-not-contact list), and the workspace's agent configuration version (so a turn
   * context kept at that version is used without reading the agent again).
   */
  @Sweep('delivery')
  async routeInbound(item: {
    workspaceId?: WorkspaceId;
    channel: string;
    provider: string;
    to: string;
    from: string;
    providerMessageId: string;
  }): Promise<InboundRoute | null> {
    const where = item.workspaceId
      ? `n.workspace_id = $6 AND n.number = $1`
      : item.channel === 'whatsapp'
        ? `(n.id, n.workspace_id) = (SELECT w.id, w.workspace_id FROM whatsapp_numbers w WHERE w.meta_phone_number_id = $1)`
        : `n.number = $1 AND n.provider = $2 AND n.status = 'active'`;
    const rows = await this.sql<
      {
        id: string;
        workspace_id: WorkspaceId;
        number: string;
        provider: string;
        agent_id: string | null;
        seen: boolean;
        thread_id: string | null;
        thread_created_at: Date;
        thread_updated_at: Date;
        thread_handled_by: 'AI' | 'Human';
        thread_contact_id: string | null;
        blacklisted: boolean;
        config_version: string | null;
      }[]
    >(
      `SELECT r.*, t.id AS thread_id, t.created_at AS thread_created_at, t.updated_at AS thread_updated_at,
              t.handled_by AS thread_handled_by, t.contact_id AS thread_contact_id,
              ${phoneBlacklistedSql('r.workspace_id', '$5')} AS blacklisted, ${agentConfigVersionSql('r')} AS config_version
         FROM (SELECT n.id, n.workspace_id, n.number, n.provider,
                      (SELECT b.agent_id FROM phone_number_bindings b
                        WHERE b.workspace_id = n.workspace_id AND b.phone_number_id = n.id AND b.channel = $3)
                        AS agent_id,
                      EXISTS (SELECT 1 FROM provider_messages p
                               WHERE p.workspace_id = n.workspace_id AND p.provider = $2
                                 AND p.provider_message_id = $4) AS seen
                 FROM phone_numbers n
                WHERE ${where}
                ORDER BY n.created_at LIMIT 1) r
         LEFT JOIN LATERAL (
               SELECT t.id, t.created_at, t.updated_at, t.handled_by, c.contact_id
                 FROM messaging_threads t JOIN conversations c ON c.id = t.id AND c.workspace_id = t.workspace_id
                WHERE t.workspace_id = r.workspace_id AND t.channel = $3 AND t.customer_address = $5
                  AND t.phone_number_id = r.id AND t.page_id IS NULL
                  AND c.agent_id IS NOT DISTINCT FROM r.agent_id AND c.status = 'active'
                ORDER BY t.created_at DESC LIMIT 1) t ON true`,
      [
        item.to,
        item.provider,
        item.channel,
        item.providerMessageId,
        item.from,
        ...(item.workspaceId ? [item.workspaceId] : []),
      ],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      workspaceId: r.workspace_id,
      number: { id: r.id, number: r.number, provider: r.provider },
      agentId: r.agent_id,
      seen: r.seen,
      blacklisted: r.blacklisted,
      configVersion: r.config_version,
      line: r.thread_id
        ? {
            id: r.thread_id,
            createdAt: r.thread_created_at,
            updatedAt: r.thread_updated_at,
            handledBy: r.thread_handled_by,
            blacklisted: r.blacklisted,
            contactId: r.thread_contact_id,
          }
        : null,
    };
  }

  /** Whether this provider message was received already (a repeated delivery). */
  seen(workspaceId: WorkspaceId, provider: string, providerMessageId: string): Promise<boolean> {
    return this.exists(workspaceId, { provider, providerMessageId });
  }
}

/** The number an inbound message addressed, its workspace, the agent bound on the channel; a repeat is `seen`. */
export interface InboundRoute {
  workspaceId: WorkspaceId;
  number: { id: string; number: string; provider: string };
  agentId: string | null;
  seen: boolean;
  /** Whether the customer's address is on the do-not-contact list. */
  blacklisted: boolean;
  /** The workspace's agent configuration version as of this read (agentConfigVersionSql). */
  configVersion: string | null;
  /** The line's active conversation with that agent (null: none, a new one opens). */
  line: FoundLine | null;
}

/** A line's active conversation as a read found it, with whether the customer is on the do-not-contact list. */
export interface FoundLine {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  handledBy: 'AI' | 'Human';
  blacklisted: boolean;
  /** The conversation's contact (read with the line, so a turn can start its reply before its write). */
  contactId?: string | null;
}

export interface ThreadKey {
  channel: Channel;
  phoneNumberId: string | null;
  pageId: string | null;
  customerAddress: string;
  agentId: string | null;
}

@Injectable()
export class MessagingThreadsRepository extends WorkspaceScopedRepository<MessagingThread> {
  constructor(@InjectRepository(MessagingThread) repo: Repository<MessagingThread>) {
    super(repo);
  }

  /**
   * The latest active conversation of this agent (or of no agent) with the customer on this line, and whether the
   * customer's address is on the do-not-contact list (read in the same statement).
   */
  async latestActive(
    workspaceId: WorkspaceId,
    key: ThreadKey,
  ): Promise<{ thread: MessagingThread; blacklisted: boolean } | null> {
    const rows = await this.sql<
      {
        id: string;
        created_at: Date;
        updated_at: Date;
        channel: Channel;
        phone_number_id: string | null;
        page_id: string | null;
        customer_address: string;
        handled_by: 'AI' | 'Human';
        blacklisted: boolean;
      }[]
    >(
      `SELECT t.id, t.created_at, t.updated_at, t.channel, t.phone_number_id, t.page_id, t.customer_address,
              t.handled_by, ${phoneBlacklistedSql('$1', '$3')} AS blacklisted
         FROM messaging_threads t JOIN conversations c ON c.id = t.id AND c.workspace_id = t.workspace_id
        WHERE t.workspace_id = $1 AND t.channel = $2 AND t.customer_address = $3
          AND t.phone_number_id IS NOT DISTINCT FROM $4 AND t.page_id IS NOT DISTINCT FROM $5
          AND c.agent_id IS NOT DISTINCT FROM $6 AND c.status = 'active'
        ORDER BY t.created_at DESC LIMIT 1`,
      [workspaceId, key.channel, key.customerAddress, key.phoneNumberId, key.pageId, key.agentId],
    );
    const r = rows[0];
    if (!r) return null;
    return this.found(workspaceId, key, {
      id: r.id,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      handledBy: r.handled_by,
      blacklisted: r.blacklisted,
    });
  }

  /** The thread of `key` as a read found it. */
  found(
    workspaceId: WorkspaceId,
    key: ThreadKey,
    line: FoundLine,
  ): { thread: MessagingThread; blacklisted: boolean } {
    const thread = this.build(workspaceId, {
      id: line.id,
      createdAt: line.createdAt,
      updatedAt: line.updatedAt,
      channel: key.channel,
      phoneNumberId: key.phoneNumberId,
      pageId: key.pageId,
      customerAddress: key.customerAddress,
      handledBy: line.handledBy,
    });
    return { thread, blacklisted: line.blacklisted };
  }

  async setHandledBy(workspaceId: WorkspaceId, id: string, handledBy: 'AI' | 'Human'): Promise<void> {
    await this.updateWhere(workspaceId, { id }, { handledBy });
  }
}
