import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A workspace's claim of waiting flow executions as one call: the workspace's advisory lock, then the count of
 * running ones and the move of the oldest waiting ones into the free slots. In a volatile PL/pgSQL function each
 * statement reads a fresh snapshot, so the count sees every claim committed before the lock was granted (which a
 * single plain statement, whose snapshot predates its lock, would not); called alone it is its own transaction,
 * whose commit releases the lock. One round trip instead of four (begin, lock, claim, commit). `started_at` is the
 * time the lock was granted: claims in turn get times in turn, and every row of one claim the same time.
 *
 * The index of active executions gains `id`, so the oldest waiting ones (`ORDER BY created_at, id`; an event's
 * executions share their `created_at`) are read in index order, as many as there are free slots, however long the
 * line is; the rows to move are then found by primary key.
 */
export class FlowClaimFunction1764100000000 implements MigrationInterface {
  name = 'FlowClaimFunction1764100000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_flow_executions_line ON flow_executions (workspace_id, status, created_at, id)
        WHERE status IN ('queued', 'running')`,
    );
    await q.query(`DROP INDEX ix_flow_executions_active`);
    await q.query(`
      CREATE FUNCTION flow_executions_claim(p_workspace uuid, p_limit int, p_owner varchar, p_lease_ms int)
        RETURNS SETOF flow_executions LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        v_at timestamptz;
        v_free int;
        v_ids uuid[];
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('flow_executions:' || p_workspace::text));
        v_at := clock_timestamp();
        SELECT p_limit - count(*) INTO v_free FROM flow_executions
         WHERE workspace_id = p_workspace AND status = 'running';
        IF v_free <= 0 THEN
          RETURN;
        END IF;
        v_ids := ARRAY(SELECT id FROM flow_executions WHERE workspace_id = p_workspace AND status = 'queued'
                        ORDER BY created_at, id LIMIT v_free);
        IF cardinality(v_ids) = 0 THEN
          RETURN;
        END IF;
        -- By primary key alone: the ids were chosen under the lock from this workspace's waiting executions.
        RETURN QUERY
          UPDATE flow_executions e
             SET status = 'running', started_at = COALESCE(e.started_at, v_at), claimed_by = p_owner,
                 lease_until = v_at + p_lease_ms * interval '1 millisecond', updated_at = v_at
           WHERE e.id = ANY (v_ids)
          RETURNING e.*;
      END $$`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION flow_executions_claim(uuid, int, varchar, int)`);
    await q.query(
      `CREATE INDEX ix_flow_executions_active ON flow_executions (workspace_id, status, created_at)
        WHERE status IN ('queued', 'running')`,
    );
    await q.query(`DROP INDEX ix_flow_executions_line`);
  }
}
