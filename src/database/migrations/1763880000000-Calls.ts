import { MigrationInterface, QueryRunner } from 'typeorm';

/** Call records (one per call conversation, sharing its id) and the do-not-call list. */
export class Calls1763880000000 implements MigrationInterface {
  name = 'Calls1763880000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE calls (
        id uuid PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
        contact_id uuid,
        phone_number_id uuid REFERENCES phone_numbers(id) ON DELETE SET NULL,
        direction varchar(10) NOT NULL CHECK (direction IN ('Inbound', 'Outbound')),
        channel varchar(20) NOT NULL CHECK (channel IN ('phone', 'whatsapp_call')),
        status varchar(20) NOT NULL CHECK (status IN
          ('queued', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled')),
        end_reason varchar(30),
        error jsonb,
        handled_by varchar(10) NOT NULL DEFAULT 'AI' CHECK (handled_by IN ('AI', 'Human')),
        from_number varchar(32) NOT NULL,
        to_number varchar(32) NOT NULL,
        provider varchar(20) NOT NULL,
        provider_call_id varchar(64),
        is_simulation boolean NOT NULL,
        muted boolean NOT NULL DEFAULT false,
        forwarded_to jsonb,
        variables jsonb NOT NULL DEFAULT '{}',
        metadata jsonb NOT NULL DEFAULT '{}',
        first_message text,
        prompt jsonb,
        about text,
        record boolean NOT NULL DEFAULT false,
        max_duration_seconds integer NOT NULL,
        ring_timeout_seconds integer NOT NULL,
        silence_timeout_seconds integer NOT NULL,
        campaign_id uuid,
        task_id uuid,
        listing_id uuid,
        recording jsonb,
        provider_log jsonb NOT NULL DEFAULT '[]',
        owner_id varchar(64),
        last_activity_at timestamptz(3),
        answered_at timestamptz(3),
        ended_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ix_calls_list ON calls (workspace_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX ix_calls_agent ON calls (workspace_id, agent_id, created_at)`);
    await q.query(`CREATE INDEX ix_calls_contact ON calls (workspace_id, contact_id)`);
    // The concurrency reconciler reads every live call; ended calls are the vast majority and stay out of it.
    await q.query(
      `CREATE INDEX ix_calls_live ON calls (workspace_id, phone_number_id)
        WHERE status IN ('queued', 'ringing', 'in-progress')`,
    );

    await q.query(`
      CREATE TABLE blacklist_entries (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        contact_id uuid REFERENCES contacts(id) ON DELETE CASCADE,
        phone_number varchar(32),
        email varchar(320),
        type varchar(10) NOT NULL CHECK (type IN ('Phone', 'Email', 'Both')),
        reason text NOT NULL,
        source varchar(10) NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'opt_out')),
        is_permanent boolean NOT NULL DEFAULT true,
        expires_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CHECK (phone_number IS NOT NULL OR email IS NOT NULL),
        CHECK (is_permanent OR expires_at IS NOT NULL)
      )`);
    await q.query(
      `CREATE INDEX ix_blacklist_phone ON blacklist_entries (workspace_id, phone_number) WHERE phone_number IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX ix_blacklist_email ON blacklist_entries (workspace_id, lower(email)) WHERE email IS NOT NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE blacklist_entries`);
    await q.query(`DROP TABLE calls`);
  }
}
