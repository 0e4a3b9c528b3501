import { MigrationInterface, QueryRunner } from 'typeorm';

/** The voice runtime: an agent reply cut by the customer speaking over it is kept with `interrupted`. */
export class VoiceRuntime1763900000000 implements MigrationInterface {
  name = 'VoiceRuntime1763900000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages ADD COLUMN interrupted boolean NOT NULL DEFAULT false`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages DROP COLUMN interrupted`);
  }
}
