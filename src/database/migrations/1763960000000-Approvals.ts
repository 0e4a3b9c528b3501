import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contact approvals (values memorize proposes for a person to accept or refuse), contact analyzers (how memorize
 * may write each built-in field, custom field and pipeline stage) and the workspace's contact settings (how inbound
 * conversations find or create their contact).
 */
export class Approvals1763960000000 implements MigrationInterface {
  name = 'Approvals1763960000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE contact_approvals (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        conversation_id uuid,
        session_id uuid,
        field_name varchar(100) NOT NULL,
        current_value jsonb,
        proposed_value jsonb NOT NULL,
        confidence numeric(4, 3) CHECK (confidence BETWEEN 0 AND 1),
        reason text,
        status varchar(10) NOT NULL DEFAULT 'Pending' CHECK (status IN ('Pending', 'Approved', 'Rejected')),
        applied_value jsonb,
        rejection_reason text,
        decided_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_contact_approvals_list ON contact_approvals (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_contact_approvals_status ON contact_approvals (workspace_id, status, created_at DESC)`,
    );
    await q.query(`CREATE INDEX ix_contact_approvals_contact ON contact_approvals (contact_id)`);
    // One proposal per field and session: a second run of memorize for the session adds nothing.
    await q.query(
      `CREATE UNIQUE INDEX uq_contact_approvals_session_field ON contact_approvals (workspace_id, session_id, field_name)
         WHERE session_id IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE contact_analyzers (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        kind varchar(10) NOT NULL CHECK (kind IN ('builtin', 'field', 'stage')),
        builtin_field varchar(40),
        field_id uuid REFERENCES contact_fields(id) ON DELETE CASCADE,
        stage_id uuid REFERENCES pipeline_stages(id) ON DELETE CASCADE,
        update_behavior varchar(30) NOT NULL CHECK (update_behavior IN
          ('dont_update', 'update_if_empty', 'ask_approval_if_existing', 'manual_approval', 'automatic_update')),
        analysis_goals text,
        example_values text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CHECK ((kind = 'builtin') = (builtin_field IS NOT NULL)),
        CHECK ((kind = 'field') = (field_id IS NOT NULL)),
        CHECK ((kind = 'stage') = (stage_id IS NOT NULL))
      )`);
    await q.query(
      `CREATE UNIQUE INDEX uq_contact_analyzers_builtin ON contact_analyzers (workspace_id, builtin_field)
         WHERE builtin_field IS NOT NULL`,
    );
    await q.query(`CREATE UNIQUE INDEX uq_contact_analyzers_field ON contact_analyzers (field_id)`);
    await q.query(`CREATE UNIQUE INDEX uq_contact_analyzers_stage ON contact_analyzers (stage_id)`);

    await q.query(`
      CREATE TABLE contact_settings (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        match_inbound_by jsonb NOT NULL DEFAULT '["phone_number", "email"]',
        auto_create_contacts boolean NOT NULL DEFAULT true,
        default_country_code varchar(2),
        default_timezone varchar(64),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_contact_settings_workspace ON contact_settings (workspace_id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE contact_settings`);
    await q.query(`DROP TABLE contact_analyzers`);
    await q.query(`DROP TABLE contact_approvals`);
  }
}
