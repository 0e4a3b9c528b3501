import { MigrationInterface, QueryRunner } from 'typeorm';
import { createConfigVersionTriggers, dropConfigVersionTriggers } from '../config-version-triggers';

/**
 * Everything a turn reads of an agent (the agent row and its collections, its numbers and pages, the evaluation and
 * memorize settings, defaults included) bumps one counter per workspace, `agent_config_versions.version`, in the
 * transaction of the change. A process that keeps an agent's turn context for a live call compares the counter
 * (read with the call row) to the one the context was read with. Statement-level triggers with transition tables:
 * one bump per statement, whatever the number of rows, and every write path is covered (the API, cascades, SQL
 * typed by hand). No foreign key: a workspace's deletion cascades into these tables and bumps as it goes.
 */
const TABLES = [
  'agents',
  'agent_notes',
  'agent_training',
  'agent_procedures',
  'agent_intents',
  'agent_webhooks',
  'agent_routing_rules',
  'agent_guard_rules',
  'evaluation_settings',
  'memorize_settings',
  'phone_numbers',
  'phone_number_bindings',
  'messenger_pages',
];

export class AgentConfigVersions1764000000000 implements MigrationInterface {
  name = 'AgentConfigVersions1764000000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agent_config_versions (
        workspace_id uuid PRIMARY KEY,
        version bigint NOT NULL
      )`);
    await q.query(`CREATE SEQUENCE agent_config_version_seq`);
    await q.query(`
      CREATE FUNCTION bump_agent_config_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO agent_config_versions AS v (workspace_id, version)
          SELECT w, nextval('agent_config_version_seq')
            FROM (SELECT DISTINCT workspace_id AS w FROM changed WHERE workspace_id IS NOT NULL) d
        ON CONFLICT (workspace_id) DO UPDATE SET version = EXCLUDED.version;
        RETURN NULL;
      END $$`);
    await createConfigVersionTriggers(q, TABLES);
  }

  public async down(q: QueryRunner): Promise<void> {
    await dropConfigVersionTriggers(q, TABLES);
    await q.query(`DROP FUNCTION IF EXISTS bump_agent_config_version()`);
    await q.query(`DROP SEQUENCE IF EXISTS agent_config_version_seq`);
    await q.query(`DROP TABLE IF EXISTS agent_config_versions`);
  }
}
