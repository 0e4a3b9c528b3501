import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a campaign next dials (`next_dial_at` of its answer and list item): the earliest `scheduled` task of each of
 * its pools is the first entry of this index, as `ix_outbound_tasks_claim` gives the earliest `pending` one.
 */
export class OutboundCampaignNextTask1764150000000 implements MigrationInterface {
  name = 'OutboundCampaignNextTask1764150000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_outbound_tasks_next ON outbound_tasks (campaign_id, pool_id, scheduled_at)
       WHERE status = 'scheduled'`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ix_outbound_tasks_next`);
  }
}
