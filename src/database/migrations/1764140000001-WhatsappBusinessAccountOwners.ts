import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A WhatsApp Business Account has one owner across workspaces, the workspace whose number used it first: setting
 * `waba_id` on a number looks its owner up by WABA id alone, oldest first. Not unique: several numbers of one
 * workspace share a WABA, and rows from before the rule may repeat one across workspaces; the service (under an
 * advisory lock on the WABA id) keeps new ones from doing so.
 */
export class WhatsappBusinessAccountOwners1764140000001 implements MigrationInterface {
  name = 'WhatsappBusinessAccountOwners1764140000001';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_whatsapp_numbers_waba_owner ON whatsapp_numbers (waba_id, created_at, id)
        WHERE waba_id IS NOT NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ix_whatsapp_numbers_waba_owner`);
  }
}
