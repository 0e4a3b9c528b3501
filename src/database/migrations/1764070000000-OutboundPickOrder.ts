import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dispatcher picks a pool's due pending tasks in the pool's order (`DispatchRepository.pick`): FIFO oldest
 * member first, LIFO newest first (the same index read backwards), Parallel by priority then age. Indexes in those
 * orders let a pick read its few rows in order instead of sorting every pending task of the pool per claim.
 */
export class OutboundPickOrder1764070000000 implements MigrationInterface {
  name = 'OutboundPickOrder1764070000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_outbound_tasks_pick_age ON outbound_tasks (campaign_id, pool_id, member_added_at, id)
        WHERE status = 'pending'`,
    );
    await q.query(
      `CREATE INDEX ix_outbound_tasks_pick_priority
          ON outbound_tasks (campaign_id, pool_id, priority DESC, member_added_at, id)
        WHERE status = 'pending'`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ix_outbound_tasks_pick_priority`);
    await q.query(`DROP INDEX IF EXISTS ix_outbound_tasks_pick_age`);
  }
}
