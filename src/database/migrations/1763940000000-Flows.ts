import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Automation flows: the draft (steps as one JSON list, edited under the flow's row lock), deployed versions,
 * executions with their per-step records. Flows read the outbox in the claim that fans events out to webhooks, so
 * they see exactly the events webhooks see; `outbox_events.chain` carries the executions that caused an event (the
 * loop guard).
 */
export class Flows1763940000000 implements MigrationInterface {
  name = 'Flows1763940000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE flows (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name varchar(255) NOT NULL,
        description text,
        status varchar(10) NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'deployed', 'disabled')),
        steps jsonb NOT NULL DEFAULT '[]',
        live_version integer,
        has_undeployed_changes boolean NOT NULL DEFAULT false,
        trigger_key varchar(40),
        trigger_config jsonb,
        webhook_token varchar(64),
        deployed_at timestamptz(3),
        disabled_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ix_flows_list ON flows (workspace_id, created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX ix_flows_live_trigger ON flows (workspace_id, trigger_key) WHERE status = 'deployed'`,
    );
    await q.query(`
      CREATE TABLE flow_versions (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        flow_id uuid NOT NULL REFERENCES flows(id) ON DELETE CASCADE,
        version_number integer NOT NULL,
        steps jsonb NOT NULL,
        deployed_at timestamptz(3) NOT NULL DEFAULT now(),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        UNIQUE (flow_id, version_number)
      )`);
    await q.query(`CREATE INDEX ix_flow_versions_ws ON flow_versions (workspace_id, flow_id)`);
    await q.query(`
      CREATE TABLE flow_executions (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        flow_id uuid NOT NULL REFERENCES flows(id) ON DELETE CASCADE,
        version integer NOT NULL,
        status varchar(10) NOT NULL DEFAULT 'queued'
          CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
        trigger jsonb NOT NULL,
        trigger_ref varchar(120),
        chain uuid[] NOT NULL DEFAULT '{}',
        retry_of uuid,
        resume_at integer NOT NULL DEFAULT 0,
        error jsonb,
        steps jsonb NOT NULL DEFAULT '[]',
        started_at timestamptz(3),
        finished_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // One execution per flow and trigger occurrence (an outbox event, a cron tick): a replayed dispatch adds none.
    await q.query(
      `CREATE UNIQUE INDEX ux_flow_executions_trigger ON flow_executions (flow_id, trigger_ref)
        WHERE trigger_ref IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX ix_flow_executions_list ON flow_executions (workspace_id, flow_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_flow_executions_active ON flow_executions (workspace_id, status, created_at)
        WHERE status IN ('queued', 'running')`,
    );
    await q.query(`ALTER TABLE outbox_events ADD COLUMN chain uuid[]`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox_events DROP COLUMN chain`);
    await q.query(`DROP TABLE flow_executions`);
    await q.query(`DROP TABLE flow_versions`);
    await q.query(`DROP TABLE flows`);
  }
}
