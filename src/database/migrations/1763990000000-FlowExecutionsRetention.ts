import { MigrationInterface, QueryRunner } from 'typeorm';

/** The nightly purge of flow executions past retention finds ended ones by when they ended. */
export class FlowExecutionsRetention1763990000000 implements MigrationInterface {
  name = 'FlowExecutionsRetention1763990000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_flow_executions_finished ON flow_executions (finished_at) WHERE finished_at IS NOT NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_flow_executions_finished`);
  }
}
