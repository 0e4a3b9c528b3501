import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where a conversation comes from: `live` (held with the agent as it happened, on any channel) or `transcription`
 * (a recorded call turned into a conversation for its evaluation).
 */
export class ConversationSource1764145000000 implements MigrationInterface {
  name = 'ConversationSource1764145000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE conversations ADD COLUMN source varchar(20) NOT NULL DEFAULT 'live'`);
    await q.query(
      `UPDATE conversations c SET source = 'transcription' FROM transcriptions t
        WHERE t.conversation_id = c.id AND t.workspace_id = c.workspace_id`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE conversations DROP COLUMN source`);
  }
}
