import { MigrationInterface, QueryRunner } from 'typeorm';

export class Agents1763800000000 implements MigrationInterface {
  name = 'Agents1763800000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agents (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name varchar(200) NOT NULL,
        description text, company_name text, role text, objective text, tone text, behavior_guidelines text,
        company_service text, topic text, length_detail text, interest_of_product text, negative_response text,
        custom_prompt text, language text, speed text, timezone text, custom_llm_url text, recommendations text,
        status varchar(20) NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'ready', 'in_progress', 'paused', 'completed')),
        appointment_scheduling_enabled boolean NOT NULL DEFAULT false,
        appointment_scheduling_randomly boolean NOT NULL DEFAULT false,
        settings jsonb NOT NULL DEFAULT '{"voice":{},"text":{},"memorize":{},"evaluation":{}}',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_agents_workspace_created ON agents (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX ix_agents_workspace_status ON agents (workspace_id, status)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE agents`);
  }
}
