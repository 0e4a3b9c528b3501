import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A Messenger or Instagram page has one owner across workspaces, the workspace that added it first: binding a page
 * and routing its inbound messages look it up by page id alone, oldest first. Not unique: rows from before the rule
 * may repeat a page in several workspaces, and the service (under an advisory lock on the page id) keeps new ones
 * from doing so.
 */
export class MessengerPageOwners1764140000000 implements MigrationInterface {
  name = 'MessengerPageOwners1764140000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX ix_messenger_pages_owner ON messenger_pages (page_id, created_at, id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ix_messenger_pages_owner`);
  }
}
