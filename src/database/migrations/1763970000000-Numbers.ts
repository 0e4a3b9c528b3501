import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Numbers bought through the number inventory: the provider's id of the bought number (released through it), its
 * monthly fee, and per-number channel settings (a partial JSON object; absent keys take their defaults). Numbers
 * registered with `POST /phone-numbers` (owned elsewhere) become `source = 'registered'`; only `purchased` ones
 * count towards the purchase limit and can be released. A purchased number has one owner across workspaces.
 */
export class Numbers1763970000000 implements MigrationInterface {
  name = 'Numbers1763970000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE phone_numbers
        ADD COLUMN provider_sid varchar(64),
        ADD COLUMN monthly_fee jsonb,
        ADD COLUMN channel_settings jsonb NOT NULL DEFAULT '{}'::jsonb`);
    // Before this migration no number was bought here: every row was a registration.
    await q.query(`UPDATE phone_numbers SET source = 'registered' WHERE source = 'purchased'`);
    await q.query(`ALTER TABLE phone_numbers ALTER COLUMN source SET DEFAULT 'registered'`);
    await q.query(
      `CREATE UNIQUE INDEX ux_phone_numbers_purchased ON phone_numbers (number) WHERE source = 'purchased'`,
    );
    await q.query(
      `CREATE INDEX ix_phone_numbers_purchased_ws ON phone_numbers (workspace_id) WHERE source = 'purchased'`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_phone_numbers_purchased_ws`);
    await q.query(`DROP INDEX ux_phone_numbers_purchased`);
    await q.query(`ALTER TABLE phone_numbers ALTER COLUMN source SET DEFAULT 'purchased'`);
    await q.query(`UPDATE phone_numbers SET source = 'purchased' WHERE source = 'registered'`);
    await q.query(`
      ALTER TABLE phone_numbers
        DROP COLUMN channel_settings,
        DROP COLUMN monthly_fee,
        DROP COLUMN provider_sid`);
  }
}
