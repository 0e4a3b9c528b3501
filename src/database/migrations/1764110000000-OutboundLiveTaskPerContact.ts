import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A contact has at most one live task per campaign (a contact in two pools is dialled once), no longer at most one
 * task ever: a member removed (its task cancelled) and added again gets a new task. Tasks that have ended
 * (`completed`, `failed`, `cancelled`, `expired`) stay for history outside the unique index.
 */
export class OutboundLiveTaskPerContact1764110000000 implements MigrationInterface {
  name = 'OutboundLiveTaskPerContact1764110000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS uq_outbound_tasks_campaign_contact`);
    await q.query(
      `CREATE UNIQUE INDEX uq_outbound_tasks_campaign_contact ON outbound_tasks (workspace_id, campaign_id, contact_id)
        WHERE campaign_id IS NOT NULL AND status IN ('scheduled', 'pending', 'queued', 'in_progress', 'on_hold')`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    // Going back needs one task per contact and campaign: the older ended ones of a contact that has several go.
    await q.query(
      `DELETE FROM outbound_tasks t USING outbound_tasks n
        WHERE t.campaign_id IS NOT NULL AND n.workspace_id = t.workspace_id AND n.campaign_id = t.campaign_id
          AND n.contact_id = t.contact_id AND (n.created_at, n.id) > (t.created_at, t.id)`,
    );
    await q.query(`DROP INDEX IF EXISTS uq_outbound_tasks_campaign_contact`);
    await q.query(
      `CREATE UNIQUE INDEX uq_outbound_tasks_campaign_contact ON outbound_tasks (workspace_id, campaign_id, contact_id)
        WHERE campaign_id IS NOT NULL`,
    );
  }
}
