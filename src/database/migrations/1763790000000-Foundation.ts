import { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1763790000000 implements MigrationInterface {
  name = 'Foundation1763790000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspaces (
        id uuid PRIMARY KEY,
        slug varchar(63) NOT NULL,
        name varchar(200) NOT NULL,
        policies jsonb NOT NULL DEFAULT '{"ANALYTICS_MESSAGES_EXPORT":"raw"}',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_workspaces_slug ON workspaces (slug)`);

    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        email varchar(320) NOT NULL,
        name varchar(200) NOT NULL,
        role varchar(20) NOT NULL CHECK (role IN ('admin', 'developer', 'member')),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_users_workspace_email ON users (workspace_id, lower(email))`);

    await q.query(`
      CREATE TABLE api_tokens (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name varchar(200) NOT NULL,
        token_hash char(64) NOT NULL,
        last_four char(4) NOT NULL,
        scopes text[] NOT NULL,
        last_used_at timestamptz(3),
        revoked_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_api_tokens_hash ON api_tokens (token_hash)`);
    await q.query(`CREATE INDEX ix_api_tokens_workspace ON api_tokens (workspace_id, created_at)`);

    await q.query(`
      CREATE TABLE idempotency_keys (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        key varchar(255) NOT NULL,
        request_hash char(64) NOT NULL,
        state varchar(16) NOT NULL CHECK (state IN ('processing', 'completed')),
        response_status integer,
        response_headers jsonb,
        response_body text,
        locked_at timestamptz(3) NOT NULL DEFAULT now(),
        expires_at timestamptz(3) NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_idempotency_keys_key ON idempotency_keys (workspace_id, key)`);
    await q.query(`CREATE INDEX ix_idempotency_keys_expires ON idempotency_keys (expires_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
    await q.query(`DROP TABLE api_tokens`);
    await q.query(`DROP TABLE users`);
    await q.query(`DROP TABLE workspaces`);
  }
}
