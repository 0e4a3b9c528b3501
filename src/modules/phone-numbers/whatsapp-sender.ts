import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Column, Entity, EntityManager, In, Repository } from 'typeorm';
import { Sweep } from '@/common/persistence/sweep';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { lockUntilCommit } from '@/common/persistence/advisory-lock';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** WhatsApp enabled on a number: Meta's phone_number_id (the routing key of inbound messages) and its WABA. */
@Entity('whatsapp_numbers')
export class WhatsappNumber extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 64 }) metaPhoneNumberId!: string;
  @Column('varchar', { length: 64, nullable: true }) wabaId!: string | null;
}

@Injectable()
export class WhatsappNumbersRepository extends WorkspaceScopedRepository<WhatsappNumber> {
  constructor(@InjectRepository(WhatsappNumber) repo: Repository<WhatsappNumber>) {
    super(repo);
  }

  /** Sets (or replaces) the number's WhatsApp sender; false when Meta's id is another number's. */
  async upsert(
    workspaceId: WorkspaceId,
    numberId: string,
    config: { metaPhoneNumberId: string; wabaId: string | null },
    manager?: EntityManager,
  ): Promise<boolean> {
    const rows = await this.sql<unknown[]>(
      `INSERT INTO whatsapp_numbers (id, workspace_id, meta_phone_number_id, waba_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET meta_phone_number_id = EXCLUDED.meta_phone_number_id,
         waba_id = EXCLUDED.waba_id, updated_at = now()
       WHERE whatsapp_numbers.workspace_id = $2
       RETURNING id`,
      [numberId, workspaceId, config.metaPhoneNumberId, config.wabaId],
      manager,
    ).catch((err: { code?: string }) => {
      if (err.code === '23505') return [];
      throw err;
    });
    return rows.length === 1;
  }

  /** The senders of these numbers, by number id, in one read. */
  async forNumbers(workspaceId: WorkspaceId, numberIds: string[]): Promise<Map<string, WhatsappNumber>> {
    if (!numberIds.length) return new Map();
    const rows = await this.find(workspaceId, { where: { id: In(numberIds) } });
    return new Map(rows.map((r) => [r.id, r]));
  }

  /**
   * Serialises the claims of one WhatsApp Business Account id, in every workspace, until the transaction ends (a
   * transaction-scoped advisory lock on the WABA id), so checking its owner and storing it cannot interleave.
   */
  async lockWaba(wabaId: string, manager: EntityManager): Promise<void> {
    await lockUntilCommit(manager, 'whatsapp-waba', wabaId);
  }

  /**
   * Whether the WABA belongs to another workspace: a number of another workspace uses it, set up before any of this
   * workspace's (templates are created, synced and deleted at Meta by WABA id).
   */
  @Sweep('inventory')
  async wabaOwnedElsewhere(
    workspaceId: WorkspaceId,
    wabaId: string,
    manager: EntityManager,
  ): Promise<boolean> {
    const rows = await this.sql<{ workspace_id: WorkspaceId }[]>(
      `SELECT workspace_id FROM whatsapp_numbers WHERE waba_id = $1 ORDER BY created_at, id LIMIT 1`,
      [wabaId],
      manager,
    );
    return !!rows[0] && rows[0].workspace_id !== workspaceId;
  }

  /** The sender with this Meta phone_number_id, whatever its workspace (inbound routing). */
  @Sweep('delivery')
  async byMetaId(metaPhoneNumberId: string): Promise<WhatsappNumber | null> {
    const rows = await this.sql<Record<string, unknown>[]>(
      `SELECT id, workspace_id, meta_phone_number_id, waba_id FROM whatsapp_numbers WHERE meta_phone_number_id = $1`,
      [metaPhoneNumberId],
    );
    const r = rows[0];
    if (!r) return null;
    return this.build(r.workspace_id as WorkspaceId, {
      id: r.id as string,
      metaPhoneNumberId: r.meta_phone_number_id as string,
      wabaId: (r.waba_id as string | null) ?? null,
    });
  }
}
