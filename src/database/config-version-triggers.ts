import type { QueryRunner } from 'typeorm';

/**
 * The statement-level triggers that move the workspace's configuration version (`agent_config_versions`, function
 * `bump_agent_config_version`, migration 1764000000000) on every insert, update and delete of a table with a
 * `workspace_id` column, whatever the write path.
 */
const EVENTS: [string, string][] = [
  ['INSERT', 'NEW TABLE AS changed'],
  ['UPDATE', 'NEW TABLE AS changed'],
  ['DELETE', 'OLD TABLE AS changed'],
];

export async function createConfigVersionTriggers(q: QueryRunner, tables: string[]): Promise<void> {
  for (const table of tables)
    for (const [event, referencing] of EVENTS)
      await q.query(
        `CREATE TRIGGER ${table}_config_${event.toLowerCase()} AFTER ${event} ON ${table}
           REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION bump_agent_config_version()`,
      );
}

export async function dropConfigVersionTriggers(q: QueryRunner, tables: string[]): Promise<void> {
  for (const table of tables)
    for (const [event] of EVENTS)
      await q.query(`DROP TRIGGER IF EXISTS ${table}_config_${event.toLowerCase()} ON ${table}`);
}
