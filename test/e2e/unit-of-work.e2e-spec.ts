import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { useTestApp } from '../setup/suite';

/** A savepoint undoes its own work alone: the rest of the transaction commits. */
describe('UnitOfWork.savepoint', () => {
  const suite = useTestApp({});

  it('keeps the work of a savepoint that succeeds and undoes only the one that throws', async () => {
    const uow = suite.app.get<UnitOfWork>(UnitOfWork);
    const db = suite.app.get<DataSource>(DataSource);
    const [outer, kept, undone] = [randomUUID(), randomUUID(), randomUUID()];
    const put = (tx: Parameters<Parameters<UnitOfWork['run']>[0]>[0], id: string) =>
      tx.query(`INSERT INTO agent_config_versions (workspace_id, version) VALUES ($1, 1)`, [id]);
    await uow.run(async (tx) => {
      await put(tx, outer);
      expect(await uow.savepoint(tx, () => put(tx, kept).then(() => 'done'))).toBe('done');
      await expect(
        uow.savepoint(tx, async () => {
          await put(tx, undone);
          throw new Error('follow-up failed');
        }),
      ).rejects.toThrow('follow-up failed');
    });
    const rows = (await db.query(
      `SELECT workspace_id FROM agent_config_versions WHERE workspace_id = ANY($1)`,
      [[outer, kept, undone]],
    )) as { workspace_id: string }[];
    expect(rows.map((r) => r.workspace_id).sort()).toEqual([outer, kept].sort());
  });
});
