import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Usage per conversation (a call's conversation is the call): counters added to off the hot path, one row per
 * conversation. And a workspace's optional price table, in exact decimals, that turns usage into cost.
 */
export class Usage1764175000000 implements MigrationInterface {
  name = 'Usage1764175000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE conversation_usage (
        id uuid PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        prompt_tokens bigint NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
        completion_tokens bigint NOT NULL DEFAULT 0 CHECK (completion_tokens >= 0),
        stt_ms bigint NOT NULL DEFAULT 0 CHECK (stt_ms >= 0),
        tts_characters bigint NOT NULL DEFAULT 0 CHECK (tts_characters >= 0),
        tool_calls integer NOT NULL DEFAULT 0 CHECK (tool_calls >= 0),
        forwarded_seconds integer NOT NULL DEFAULT 0 CHECK (forwarded_seconds >= 0),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ix_conversation_usage_workspace ON conversation_usage (workspace_id)`);
    await q.query(`
      CREATE TABLE workspace_prices (
        workspace_id uuid PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        currency char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        llm_prompt_per_1k numeric(18, 9) NOT NULL DEFAULT 0 CHECK (llm_prompt_per_1k >= 0),
        llm_completion_per_1k numeric(18, 9) NOT NULL DEFAULT 0 CHECK (llm_completion_per_1k >= 0),
        stt_per_minute numeric(18, 9) NOT NULL DEFAULT 0 CHECK (stt_per_minute >= 0),
        tts_per_1k_characters numeric(18, 9) NOT NULL DEFAULT 0 CHECK (tts_per_1k_characters >= 0),
        call_per_minute numeric(18, 9) NOT NULL DEFAULT 0 CHECK (call_per_minute >= 0),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE workspace_prices`);
    await q.query(`DROP TABLE conversation_usage`);
  }
}
