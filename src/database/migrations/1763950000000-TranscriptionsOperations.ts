import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Transcriptions of recorded calls, the request log, and webhook deliveries addressed by a single request (a
 * transcription's `webhook_url`, with its bearer token sealed on the delivery).
 */
export class TranscriptionsOperations1763950000000 implements MigrationInterface {
  name = 'TranscriptionsOperations1763950000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE transcriptions (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        status varchar(12) NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
        error text,
        attempts int NOT NULL DEFAULT 0,
        reference_id varchar(255),
        file_name varchar(255),
        file_bytes bigint,
        file_path text,
        customer_file_path text,
        voice_url varchar(2048),
        customer_voice_url varchar(2048),
        duration double precision,
        language varchar(16),
        possible_language varchar(8),
        possible_conversation text,
        contact_id uuid,
        customer_phone varchar(32),
        customer_email varchar(320),
        email varchar(320),
        webhook_url varchar(2048),
        webhook_token_ciphertext text,
        qa_agent_id uuid,
        coaching_agent_id uuid,
        conversation_id uuid,
        session_id uuid,
        metadata jsonb,
        text text,
        segments jsonb,
        processed_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_transcriptions_list ON transcriptions (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX ix_transcriptions_reference ON transcriptions (workspace_id, reference_id)`);

    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_webhook_kind_check`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_webhook_kind_check
         CHECK (webhook_kind IN ('workspace', 'agent', 'request'))`,
    );
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN auth_ciphertext text`);

    await q.query(`
      CREATE TABLE request_logs (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        request_id varchar(64) NOT NULL,
        method varchar(10) NOT NULL,
        path varchar(2048) NOT NULL,
        query jsonb,
        status int NOT NULL,
        duration_ms int NOT NULL,
        ip varchar(64),
        user_agent varchar(512),
        token_id uuid,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_request_logs_list ON request_logs (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX ix_request_logs_created ON request_logs (created_at)`);
    await q.query(`CREATE INDEX ix_action_logs_created ON action_logs (created_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_action_logs_created`);
    await q.query(`DROP TABLE request_logs`);
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN auth_ciphertext`);
    await q.query(`DELETE FROM webhook_deliveries WHERE webhook_kind = 'request'`);
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_webhook_kind_check`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_webhook_kind_check
         CHECK (webhook_kind IN ('workspace', 'agent'))`,
    );
    await q.query(`DROP TABLE transcriptions`);
  }
}
