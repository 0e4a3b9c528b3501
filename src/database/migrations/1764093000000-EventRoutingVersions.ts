import { MigrationInterface, QueryRunner } from 'typeorm';
import { createConfigVersionTriggers, dropConfigVersionTriggers } from '../config-version-triggers';

/**
 * Event routing (which webhooks and which deployed flows an outbox event goes to) is kept per process under the
 * workspace's configuration version, read with each claimed event: the workspace webhooks and the flows now move
 * that version too (agent webhooks already did, see 1764000000000), so a process reads the routes again after any
 * change and reuses them otherwise.
 */
const TABLES = ['webhooks', 'flows'];

export class EventRoutingVersions1764093000000 implements MigrationInterface {
  name = 'EventRoutingVersions1764093000000';

  public async up(q: QueryRunner): Promise<void> {
    await createConfigVersionTriggers(q, TABLES);
  }

  public async down(q: QueryRunner): Promise<void> {
    await dropConfigVersionTriggers(q, TABLES);
  }
}
