import { MigrationInterface, QueryRunner } from 'typeorm';

const TASK_STATUSES = `'scheduled', 'pending', 'queued', 'in_progress', 'on_hold', 'completed', 'failed', 'cancelled', 'expired'`;

/**
 * Answering-machine detection: a call's `answered_by`, the voicemail policy it was placed with and how its answer was
 * detected; a campaign's (and its tasks') voicemail override; the task status `voicemail`. Nullable columns without
 * a default only touch the catalogue; the new status check is added NOT VALID and validated after, so the table is
 * scanned without blocking writes.
 */
export class CallVoicemail1764170000000 implements MigrationInterface {
  name = 'CallVoicemail1764170000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE calls ADD COLUMN answered_by varchar(10), ADD COLUMN voicemail jsonb,
         ADD COLUMN machine_detection jsonb`,
    );
    await q.query(`ALTER TABLE outbound_campaigns ADD COLUMN voicemail jsonb`);
    await q.query(`ALTER TABLE outbound_tasks ADD COLUMN voicemail jsonb`);
    await q.query(`ALTER TABLE outbound_tasks DROP CONSTRAINT outbound_tasks_status_check`);
    await q.query(
      `ALTER TABLE outbound_tasks ADD CONSTRAINT outbound_tasks_status_check
         CHECK (status IN (${TASK_STATUSES}, 'voicemail')) NOT VALID`,
    );
    await q.query(`ALTER TABLE outbound_tasks VALIDATE CONSTRAINT outbound_tasks_status_check`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE outbound_tasks SET status = 'completed' WHERE status = 'voicemail'`);
    await q.query(`ALTER TABLE outbound_tasks DROP CONSTRAINT outbound_tasks_status_check`);
    await q.query(
      `ALTER TABLE outbound_tasks ADD CONSTRAINT outbound_tasks_status_check CHECK (status IN (${TASK_STATUSES}))`,
    );
    await q.query(`ALTER TABLE outbound_tasks DROP COLUMN voicemail`);
    await q.query(`ALTER TABLE outbound_campaigns DROP COLUMN voicemail`);
    await q.query(
      `ALTER TABLE calls DROP COLUMN answered_by, DROP COLUMN voicemail, DROP COLUMN machine_detection`,
    );
  }
}
