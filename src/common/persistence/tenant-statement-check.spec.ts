import { runAsSweep, Sweep, currentSweep } from './sweep';
import { checkStatement, recordsTableSource, TenantTables } from './tenant-statement-check';

const tenant: TenantTables = {
  tables: new Set(['agents', 'webhook_deliveries']),
  recordsSchema: 'knowledge_data',
};
const SOURCE = '0f8fad5b-d9cb-469f-a165-70867728950e';
const RECORDS = `knowledge_data."r_${SOURCE.replaceAll('-', '')}_0a1b2c3d"`;

describe('tenant statement check', () => {
  it('catches a statement on a tenant table without a workspace filter', () => {
    const v = checkStatement('SELECT "a"."id" FROM "agents" "a" WHERE "a"."id" = $1', tenant);
    expect(v).toMatchObject({ ok: false, reason: 'no workspace_id filter on agents' });
  });

  it('catches an update that only sets workspace_id and a join that filters nothing', () => {
    expect(checkStatement('UPDATE agents SET name = $1, workspace_id = $2 WHERE id = $3', tenant).ok).toBe(
      false,
    );
    expect(
      checkStatement('DELETE FROM webhook_deliveries d USING agents a WHERE d.agent_id = a.id', tenant).ok,
    ).toBe(false);
  });

  it('passes a statement filtered on workspace_id, in TypeORM or hand-written form', () => {
    expect(checkStatement('SELECT * FROM "agents" "A" WHERE (("A"."workspace_id" = $1))', tenant).ok).toBe(
      true,
    );
    expect(checkStatement('UPDATE agents SET name = $2 WHERE id = $1 AND workspace_id = $3', tenant).ok).toBe(
      true,
    );
    expect(checkStatement('SELECT 1 FROM agents WHERE workspace_id = ANY($1)', tenant).ok).toBe(true);
  });

  it('ignores a filter written only inside a comment or a string', () => {
    const sql = "SELECT * FROM agents WHERE name = 'x and workspace_id = 1' /* where workspace_id = $1 */";
    expect(checkStatement(sql, tenant).ok).toBe(false);
  });

  it('passes an insert that names its workspace, not an insert that copies rows unfiltered', () => {
    expect(
      checkStatement('INSERT INTO "agents"("id", "workspace_id") VALUES ($1, $2) RETURNING id', tenant).ok,
    ).toBe(true);
    expect(
      checkStatement('INSERT INTO agents (id, workspace_id) SELECT id, workspace_id FROM agents', tenant).ok,
    ).toBe(false);
  });

  it('passes statements on other tables and transaction control', () => {
    expect(checkStatement('SELECT * FROM workspaces WHERE id = $1', tenant).ok).toBe(true);
    expect(checkStatement('COMMIT', tenant).ok).toBe(true);
  });

  it('passes an unfiltered statement of a named sweep, by context or by comment', () => {
    const sql = 'SELECT id FROM webhook_deliveries WHERE next_attempt_at < now()';
    expect(checkStatement(sql, tenant, { sweep: 'delivery' })).toMatchObject({ ok: true, why: 'sweep' });
    expect(checkStatement(`/* sweep:retention */ ${sql}`, tenant)).toMatchObject({ ok: true, why: 'sweep' });
    expect(checkStatement(`/* sweep:whatever */ ${sql}`, tenant).ok).toBe(false);
  });

  it('passes a records table only when its data source was read through a workspace filter', () => {
    const sql = `SELECT count(*) FROM ${RECORDS}`;
    expect(recordsTableSource(`r_${SOURCE.replaceAll('-', '')}_0a1b2c3d`)).toBe(SOURCE);
    expect(checkStatement(sql, tenant).ok).toBe(false);
    expect(checkStatement(sql, tenant, { scopedDataSources: new Set([SOURCE]) }).ok).toBe(true);
  });
});

describe('Sweep', () => {
  class Deliveries {
    @Sweep('delivery')
    async due(): Promise<string | undefined> {
      await Promise.resolve();
      return currentSweep();
    }
  }

  it('names the sweep for the whole method, across awaits, and nowhere else', async () => {
    await expect(new Deliveries().due()).resolves.toBe('delivery');
    expect(currentSweep()).toBeUndefined();
    expect(runAsSweep('retention', () => currentSweep())).toBe('retention');
  });
});
