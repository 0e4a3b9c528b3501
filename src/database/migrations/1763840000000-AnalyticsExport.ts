import { MigrationInterface, QueryRunner } from 'typeorm';

/** The message export filtered by channel or agent walks these in (created_at, id) order, like the unfiltered walk. */
export class AnalyticsExport1763840000000 implements MigrationInterface {
  name = 'AnalyticsExport1763840000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_messages_export_channel ON messages (workspace_id, channel, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX ix_messages_export_agent ON messages (workspace_id, agent_id, created_at, id)`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_messages_export_agent`);
    await q.query(`DROP INDEX ix_messages_export_channel`);
  }
}
