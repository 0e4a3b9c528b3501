import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The reads of a large campaign (`npm run bench:outbound-reads`, 100,000 tasks):
 * - a pool's member view picks its page on the members' own order (FIFO and LIFO by age, Parallel by priority then
 *   age) and reads each member's latest task from an index that holds what the member's status is made of, so a
 *   status filter walks one index and no table (it replaces `ix_outbound_tasks_pool`, of which it is a prefix);
 * - a campaign's `stats` count by status with the attempts and the last outcome in the index, one index-only walk
 *   (it replaces `ix_outbound_tasks_campaign`).
 */
export class OutboundReadIndexes1764130000000 implements MigrationInterface {
  name = 'OutboundReadIndexes1764130000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_outbound_pool_members_age ON outbound_pool_members (workspace_id, pool_id, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX ix_outbound_pool_members_priority
          ON outbound_pool_members (workspace_id, pool_id, priority DESC, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX ix_outbound_tasks_member
          ON outbound_tasks (workspace_id, pool_id, contact_id, created_at DESC, id DESC)
          INCLUDE (status, attempts, failure_reason)`,
    );
    await q.query(`DROP INDEX IF EXISTS ix_outbound_tasks_pool`);
    await q.query(
      `CREATE INDEX ix_outbound_tasks_campaign_stats ON outbound_tasks (workspace_id, campaign_id, status)
          INCLUDE (attempts, last_outcome)`,
    );
    await q.query(`DROP INDEX IF EXISTS ix_outbound_tasks_campaign`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_outbound_tasks_campaign ON outbound_tasks (workspace_id, campaign_id, status)`,
    );
    await q.query(`DROP INDEX IF EXISTS ix_outbound_tasks_campaign_stats`);
    await q.query(
      `CREATE INDEX ix_outbound_tasks_pool ON outbound_tasks (workspace_id, pool_id, contact_id)`,
    );
    await q.query(`DROP INDEX IF EXISTS ix_outbound_tasks_member`);
    await q.query(`DROP INDEX IF EXISTS ix_outbound_pool_members_priority`);
    await q.query(`DROP INDEX IF EXISTS ix_outbound_pool_members_age`);
  }
}
