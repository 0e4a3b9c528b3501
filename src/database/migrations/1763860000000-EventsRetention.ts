import { MigrationInterface, QueryRunner } from 'typeorm';

export class EventsRetention1763860000000 implements MigrationInterface {
  name = 'EventsRetention1763860000000';

  public async up(q: QueryRunner): Promise<void> {
    // The nightly retention purge finds dispatched events by age.
    await q.query(
      `CREATE INDEX ix_outbox_dispatched ON outbox_events (dispatched_at) WHERE dispatched_at IS NOT NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_outbox_dispatched`);
  }
}
