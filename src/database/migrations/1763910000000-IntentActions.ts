import { MigrationInterface, QueryRunner } from 'typeorm';

/** The one action of an intent (webhook, hand-over, flow, built-in app), draft until published. */
export class IntentActions1763910000000 implements MigrationInterface {
  name = 'IntentActions1763910000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE intent_actions (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        intent_id uuid NOT NULL REFERENCES agent_intents(id) ON DELETE CASCADE,
        type varchar(10) NOT NULL CHECK (type IN ('webhook', 'agent', 'scenario', 'app')),
        status varchar(10) NOT NULL CHECK (status IN ('draft', 'deployed')),
        config jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX ux_intent_actions_intent ON intent_actions (intent_id)`);
    await q.query(`CREATE INDEX ix_intent_actions_agent ON intent_actions (workspace_id, agent_id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE intent_actions`);
  }
}
