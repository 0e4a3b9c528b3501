import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The timing of an agent's reply on a call (`{endpoint_ms, stt_ms, model_first_token_ms, tts_first_audio_ms,
 * voice_to_voice_ms}`). A nullable column without a default: PostgreSQL adds it to the catalogue only, without
 * rewriting the table or holding its lock longer than that.
 */
export class MessageLatency1764162000000 implements MigrationInterface {
  name = 'MessageLatency1764162000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages ADD COLUMN latency jsonb`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages DROP COLUMN latency`);
  }
}
