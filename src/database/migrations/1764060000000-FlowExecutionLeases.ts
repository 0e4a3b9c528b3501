import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Running flow executions carry their owner (the process instance running them) and a lease, so an execution left
 * `running` by a process that died is found and resumed by another (FlowRecovery). Executions already running get a
 * lease of 10 minutes: one still running then is handed back.
 */
export class FlowExecutionLeases1764060000000 implements MigrationInterface {
  name = 'FlowExecutionLeases1764060000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE flow_executions ADD COLUMN claimed_by varchar(160), ADD COLUMN lease_until timestamptz(3)`,
    );
    await q.query(
      `UPDATE flow_executions SET lease_until = now() + interval '10 minutes' WHERE status = 'running'`,
    );
    await q.query(
      `CREATE INDEX ix_flow_executions_lease ON flow_executions (claimed_by, lease_until) WHERE status = 'running'`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_flow_executions_lease`);
    await q.query(`ALTER TABLE flow_executions DROP COLUMN lease_until, DROP COLUMN claimed_by`);
  }
}
