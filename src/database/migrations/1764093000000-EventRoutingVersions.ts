import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Event routing (which webhooks and which deployed flows an outbox event goes to) is kept per process under the
 * workspace's configuration version, read with each claimed event: the workspace webhooks and the flows now move
 * that version too (agent webhooks already did, see 1764000000000), so a process reads the routes again after any
 * change and reuses them otherwise.
 */
const TABLES = ['webhooks', 'flows'];
const EVENTS: [string, string][] = [
  ['INSERT', 'NEW TABLE AS changed'],
  ['UPDATE', 'NEW TABLE AS changed'],
  ['DELETE', 'OLD TABLE AS changed'],
];

export class EventRoutingVersions1764093000000 implements MigrationInterface {
  name = 'EventRoutingVersions1764093000000';

  public async up(q: QueryRunner): Promise<void> {
    for (const table of TABLES)
      for (const [event, referencing] of EVENTS)
        await q.query(
          `CREATE TRIGGER ${table}_config_${event.toLowerCase()} AFTER ${event} ON ${table}
             REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION bump_agent_config_version()`,
        );
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const table of TABLES)
      for (const [event] of EVENTS)
        await q.query(`DROP TRIGGER IF EXISTS ${table}_config_${event.toLowerCase()} ON ${table}`);
  }
}
