import { MigrationInterface, QueryRunner } from 'typeorm';

/** Workspace webhooks, the delivery log (one row per event and subscription, one per attempt) and rotation. */
export class Webhooks1763850000000 implements MigrationInterface {
  name = 'Webhooks1763850000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        url varchar(2048) NOT NULL,
        events text[] NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        secret_ciphertext text,
        previous_secret_ciphertext text,
        previous_secret_expires_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ix_webhooks_workspace ON webhooks (workspace_id, created_at, id)`);
    await q.query(`ALTER TABLE agent_webhooks ADD COLUMN previous_secret_ciphertext text`);
    await q.query(`ALTER TABLE agent_webhooks ADD COLUMN previous_secret_expires_at timestamptz(3)`);
    await q.query(`CREATE INDEX ix_agent_webhooks_id ON agent_webhooks (workspace_id, id)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        event_id uuid NOT NULL REFERENCES outbox_events(id) ON DELETE CASCADE,
        event_type varchar(40) NOT NULL,
        webhook_kind varchar(10) NOT NULL CHECK (webhook_kind IN ('workspace', 'agent')),
        webhook_id uuid NOT NULL,
        url varchar(2048) NOT NULL,
        status varchar(10) NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempt_count int NOT NULL DEFAULT 0,
        round_start int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        locked_until timestamptz(3),
        last_status_code int,
        last_error text,
        delivered_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        UNIQUE (event_id, webhook_id)
      )`);
    await q.query(
      `CREATE INDEX ix_webhook_deliveries_list ON webhook_deliveries (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_webhook_deliveries_webhook ON webhook_deliveries (workspace_id, webhook_id, created_at)`,
    );
    await q.query(
      `CREATE INDEX ix_webhook_deliveries_status ON webhook_deliveries (workspace_id, status, created_at)`,
    );
    await q.query(
      `CREATE INDEX ix_webhook_deliveries_type ON webhook_deliveries (workspace_id, event_type, created_at)`,
    );
    await q.query(
      `CREATE INDEX ix_webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
    );
    await q.query(`
      CREATE TABLE webhook_delivery_attempts (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempt int NOT NULL,
        succeeded boolean NOT NULL,
        status_code int,
        duration_ms int NOT NULL,
        response_excerpt text,
        error text,
        next_retry_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_webhook_delivery_attempts_delivery ON webhook_delivery_attempts (workspace_id, delivery_id, attempt)`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_delivery_attempts`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP INDEX ix_agent_webhooks_id`);
    await q.query(`ALTER TABLE agent_webhooks DROP COLUMN previous_secret_expires_at`);
    await q.query(`ALTER TABLE agent_webhooks DROP COLUMN previous_secret_ciphertext`);
    await q.query(`DROP TABLE webhooks`);
  }
}
