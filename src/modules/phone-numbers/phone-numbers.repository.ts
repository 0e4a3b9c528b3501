import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { isPgError, PG_UNIQUE_VIOLATION } from '@/common/persistence/pg-errors';
import { Sweep } from '@/common/persistence/sweep';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import {
  Capabilities,
  MessengerPage,
  NumberChannel,
  PhoneNumber,
  PhoneNumberBinding,
} from './phone-number.entity';
import { lockUntilCommit } from '@/common/persistence/advisory-lock';
import type { WorkspaceId } from '@/common/auth/workspace-id';

export interface BindingRow {
  phone_number_id: string;
  channel: NumberChannel;
  agent_id: string;
  agent_name: string;
  created_at: Date;
}

/**
 * A correlated sub-select (for an `agents a` row) with everything the agent serves as a JSON array: number
 * bindings with their numbers, and Messenger pages (`channel` 'messenger'), oldest first. The agents read model
 * places it in its statement through AgentBindingsView (agent-bindings.section.ts, which maps the rows).
 */
const AGENT_BINDINGS_SQL = `
  SELECT coalesce(json_agg(x ORDER BY x.bound_at, x.channel), '[]'::json) FROM (
    SELECT b.channel, b.created_at AS bound_at, p.id AS phone_number_id, p.number, p.provider, p.status,
           p.country_code, p.type, p.capabilities, NULL AS page_id, NULL AS page_name
      FROM phone_number_bindings b JOIN phone_numbers p ON p.id = b.phone_number_id
     WHERE b.workspace_id = a.workspace_id AND b.agent_id = a.id
    UNION ALL
    SELECT 'messenger', m.updated_at, NULL, NULL, NULL, NULL, NULL, NULL, NULL, m.page_id, m.page_name
      FROM messenger_pages m
     WHERE m.workspace_id = a.workspace_id AND m.agent_id = a.id
  ) x`;

export type AgentBindingRow =
  | {
      channel: NumberChannel;
      bound_at: string;
      phone_number_id: string;
      number: string;
      provider: string;
      status: string;
      country_code: string | null;
      type: string | null;
      capabilities: Capabilities;
    }
  | { channel: 'messenger'; bound_at: string; page_id: string; page_name: string | null };

@Injectable()
export class PhoneNumbersRepository extends WorkspaceScopedRepository<PhoneNumber> {
  constructor(@InjectRepository(PhoneNumber) repo: Repository<PhoneNumber>) {
    super(repo);
  }

  /** Stores a new number in the caller's transaction; the same number twice in the workspace is 409. */
  async insertOwned(workspaceId: WorkspaceId, entity: PhoneNumber, m: EntityManager): Promise<void> {
    try {
      await this.save(workspaceId, entity, m);
    } catch (err) {
      if (isPgError(err, PG_UNIQUE_VIOLATION))
        throw AppException.conflict('This number is already registered in the workspace');
      throw err;
    }
  }

  /**
   * The provider's active number with this E.164 value, whatever its workspace: inbound routing from the signed
   * `To` (one owner each for real providers).
   */
  @Sweep('delivery')
  async byProviderNumber(
    provider: string,
    number: string,
  ): Promise<{ id: string; workspaceId: WorkspaceId } | null> {
    const rows = await this.sql<{ id: string; workspace_id: WorkspaceId }[]>(
      `SELECT id, workspace_id FROM phone_numbers WHERE number = $1 AND provider = $2 AND status = 'active'
        ORDER BY created_at LIMIT 1`,
      [number, provider],
    );
    return rows[0] ? { id: rows[0].id, workspaceId: rows[0].workspace_id } : null;
  }

  /**
   * Which of these E.164 numbers any workspace holds (bought, registered or external): the inventory offers none of
   * them and a purchase of one is 409.
   */
  @Sweep('inventory')
  async heldAnywhere(numbers: string[], manager?: EntityManager): Promise<Set<string>> {
    if (!numbers.length) return new Set();
    const rows = await this.sql<{ number: string }[]>(
      `SELECT DISTINCT number FROM phone_numbers WHERE number = ANY($1::varchar[])`,
      [numbers],
      manager,
    );
    return new Set(rows.map((r) => r.number));
  }

  /**
   * Serialises the claims of one E.164 number (registration, purchase, a SIP trunk's number), in every workspace,
   * until the transaction ends (a transaction-scoped advisory lock on the number), so checking who holds it and
   * storing it cannot interleave.
   */
  async lockNumber(number: string, manager: EntityManager): Promise<void> {
    await lockUntilCommit(manager, 'phone-number', number);
  }

  /**
   * Whether another workspace holds the number for real: with a provider other than the sandbox (whose inbound
   * traffic is routed by the number alone) or bought. Sandbox numbers are per workspace and may repeat.
   */
  @Sweep('inventory')
  async heldByAnotherWorkspace(
    workspaceId: WorkspaceId,
    number: string,
    manager: EntityManager,
  ): Promise<boolean> {
    const rows = await this.sql<{ held: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM phone_numbers WHERE number = $1 AND workspace_id <> $2
                        AND (provider <> 'sandbox' OR source = 'purchased')) AS held`,
      [number, workspaceId],
      manager,
    );
    return rows[0]?.held ?? false;
  }

  /**
   * Serialises the workspace's purchases until the transaction ends (a transaction-scoped advisory lock on the
   * workspace), so counting against the limit and inserting cannot interleave.
   */
  async lockPurchases(workspaceId: WorkspaceId, manager: EntityManager): Promise<void> {
    await lockUntilCommit(manager, 'phone-number-purchase', workspaceId);
  }

  /** The number's row, locked until the transaction ends (changes of its settings, its release). */
  lockById(workspaceId: WorkspaceId, id: string, manager: EntityManager): Promise<PhoneNumber | null> {
    return this.query(workspaceId, 'n', manager)
      .setLock('pessimistic_write')
      .andWhere('n.id = :id', { id })
      .getOne();
  }

  /** The workspace's bought numbers (those the purchase limit counts). */
  async countPurchased(workspaceId: WorkspaceId, manager: EntityManager): Promise<number> {
    const rows = await this.sql<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM phone_numbers WHERE workspace_id = $1 AND source = 'purchased'`,
      [workspaceId],
      manager,
    );
    return rows[0]?.n ?? 0;
  }
}

@Injectable()
export class PhoneNumberBindingsRepository extends WorkspaceScopedRepository<PhoneNumberBinding> {
  /** The agent's bindings and pages as one JSON array, correlated with `agents a` (the whole-agent read). */
  static readonly AGENT_VIEW_SUB_SELECT = AGENT_BINDINGS_SQL;

  constructor(@InjectRepository(PhoneNumberBinding) repo: Repository<PhoneNumberBinding>) {
    super(repo);
  }

  /** Bindings of the given numbers with the serving agent's name (for the channel snapshots). */
  withAgents(workspaceId: WorkspaceId, phoneNumberIds: string[]): Promise<BindingRow[]> {
    if (!phoneNumberIds.length) return Promise.resolve([]);
    return this.sql(
      `SELECT b.phone_number_id, b.channel, b.agent_id, a.name AS agent_name, b.created_at
         FROM phone_number_bindings b JOIN agents a ON a.id = b.agent_id
        WHERE b.workspace_id = $1 AND b.phone_number_id = ANY($2::uuid[])`,
      [workspaceId, phoneNumberIds],
    );
  }

  /** Inserts unless the number's channel is taken; answers the agent holding it when it is. */
  async claim(
    workspaceId: WorkspaceId,
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

  /**
   * Inbound routing of Messenger and Instagram: the page's owner, the workspace that added it first (whatever
   * copies other workspaces hold), with the agent it is bound to; null when the owner has it unbound.
   */
  @Sweep('delivery')
  async boundPage(pageId: string): Promise<{ workspaceId: WorkspaceId; agentId: string } | null> {
    const rows = await this.sql<{ workspace_id: WorkspaceId; agent_id: string | null }[]>(
      `SELECT workspace_id, agent_id FROM messenger_pages WHERE page_id = $1 ORDER BY created_at, id LIMIT 1`,
      [pageId],
    );
    const owner = rows[0];
    return owner?.agent_id ? { workspaceId: owner.workspace_id, agentId: owner.agent_id } : null;
  }

  /**
   * Serialises the claims of one page id, in every workspace, until the transaction ends (a transaction-scoped
   * advisory lock on the page id), so checking its owner and adding it cannot interleave.
   */
  async lockPageId(pageId: string, manager: EntityManager): Promise<void> {
    await lockUntilCommit(manager, 'messenger-page', pageId);
  }

  /** Whether the page belongs to another workspace: one holds it and added it before this one (if ever). */
  @Sweep('inventory')
  async ownedElsewhere(workspaceId: WorkspaceId, pageId: string, manager: EntityManager): Promise<boolean> {
    const rows = await this.sql<{ workspace_id: WorkspaceId }[]>(
      `SELECT workspace_id FROM messenger_pages WHERE page_id = $1 ORDER BY created_at, id LIMIT 1`,
      [pageId],
      manager,
    );
    return !!rows[0] && rows[0].workspace_id !== workspaceId;
  }

  /** The page row, created unbound when new, locked so that two binds of one page cannot both win. */
  async ensureLocked(
    workspaceId: WorkspaceId,
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
    workspaceId: WorkspaceId,
    pageId: string,
    manager: EntityManager,
  ): Promise<MessengerPage | null> {
    return this.query(workspaceId, 'p', manager)
      .setLock('pessimistic_write')
      .andWhere('p.page_id = :pageId', { pageId })
      .getOne();
  }
}
