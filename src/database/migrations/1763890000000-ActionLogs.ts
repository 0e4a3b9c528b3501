import { MigrationInterface, QueryRunner } from 'typeorm';

/** The action log: one row per task attempt, flow execution and intent call, read by `GET /logs/actions`. */
export class ActionLogs1763890000000 implements MigrationInterface {
  name = 'ActionLogs1763890000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE action_logs (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        type varchar(10) NOT NULL CHECK (type IN ('task', 'workflow', 'intent')),
        name varchar(255) NOT NULL,
        status varchar(20) NOT NULL,
        channel varchar(20),
        duration_ms integer,
        agent_id uuid,
        contact_id uuid,
        subject_id uuid,
        request jsonb,
        response jsonb,
        error text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ix_action_logs_list ON action_logs (workspace_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX ix_action_logs_type ON action_logs (workspace_id, type, created_at DESC)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE action_logs`);
  }
}
