import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Column, Entity, EntityManager, Repository } from 'typeorm';
import { Sweep } from '@/common/persistence/sweep';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';

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
    workspaceId: string,
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

  /** The sender with this Meta phone_number_id, whatever its workspace (inbound routing). */
  @Sweep('delivery')
  async byMetaId(metaPhoneNumberId: string): Promise<WhatsappNumber | null> {
    const rows = await this.sql<Record<string, unknown>[]>(
      `SELECT id, workspace_id, meta_phone_number_id, waba_id FROM whatsapp_numbers WHERE meta_phone_number_id = $1`,
      [metaPhoneNumberId],
    );
    const r = rows[0];
    if (!r) return null;
    return this.build(r.workspace_id as string, {
      id: r.id as string,
      metaPhoneNumberId: r.meta_phone_number_id as string,
      wabaId: (r.waba_id as string | null) ?? null,
    });
  }
}
