import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A turn with memorize summaries on reads the contact's last summarised sessions on its way to the model
 * (`SessionsRepository.recentSummaries`): an index that answers it without reading the workspace's other sessions.
 */
export class SessionSummariesIndex1764091000000 implements MigrationInterface {
  name = 'SessionSummariesIndex1764091000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_sessions_contact_summaries ON sessions (workspace_id, contact_id, ended_at DESC)
        WHERE summary IS NOT NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ix_sessions_contact_summaries`);
  }
}
