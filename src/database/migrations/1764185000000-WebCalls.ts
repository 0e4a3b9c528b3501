import { MigrationInterface, QueryRunner } from 'typeorm';

const CONVERSATION_TABLES = ['conversations', 'sessions', 'messages', 'evaluation_records'];
const CHANNELS = ['phone', 'sms', 'whatsapp', 'whatsapp_call', 'messenger', 'instagram', 'chat'];
const list = (values: string[]) => values.map((v) => `'${v}'`).join(', ');

/**
 * Calls from a browser: the `web` channel on calls and conversations, the single-use client tokens of web calls
 * (only their hash is kept), and the page origins a workspace allows to open them. A token is written in the
 * transaction that writes its call, before the call row: its `call_id` has no foreign key (a token outliving its
 * call opens nothing, the handshake reads the call first).
 */
export class WebCalls1764185000000 implements MigrationInterface {
  name = 'WebCalls1764185000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE calls DROP CONSTRAINT IF EXISTS calls_channel_check`);
    await q.query(
      `ALTER TABLE calls ADD CONSTRAINT calls_channel_check CHECK (channel IN ('phone', 'whatsapp_call', 'web'))`,
    );
    for (const table of CONVERSATION_TABLES) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${table}_channel_check`);
      await q.query(
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_channel_check CHECK (channel IN (${list([...CHANNELS, 'web'])}))`,
      );
    }
    await q.query(`ALTER TABLE workspaces ADD COLUMN web_call_origins jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`
      CREATE TABLE web_call_tokens (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        call_id uuid NOT NULL,
        token_hash char(64) NOT NULL UNIQUE,
        expires_at timestamptz(3) NOT NULL,
        used_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ix_web_call_tokens_call ON web_call_tokens (workspace_id, call_id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE web_call_tokens`);
    await q.query(`ALTER TABLE workspaces DROP COLUMN web_call_origins`);
    for (const table of CONVERSATION_TABLES) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${table}_channel_check`);
      await q.query(
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_channel_check CHECK (channel IN (${list(CHANNELS)}))`,
      );
    }
    await q.query(`ALTER TABLE calls DROP CONSTRAINT IF EXISTS calls_channel_check`);
    await q.query(
      `ALTER TABLE calls ADD CONSTRAINT calls_channel_check CHECK (channel IN ('phone', 'whatsapp_call'))`,
    );
  }
}
