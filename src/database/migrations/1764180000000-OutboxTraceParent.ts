import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace an outbox event was written in (a W3C `traceparent`, null with tracing off), so its webhook deliveries
 * continue that trace. A nullable column without a default: added to the catalogue only, the table not rewritten.
 */
export class OutboxTraceParent1764180000000 implements MigrationInterface {
  name = 'OutboxTraceParent1764180000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox_events ADD COLUMN trace_parent text`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox_events DROP COLUMN trace_parent`);
  }
}
