import { MigrationInterface, QueryRunner } from 'typeorm';

export class Conversations1763830000000 implements MigrationInterface {
  name = 'Conversations1763830000000';

  public async up(q: QueryRunner): Promise<void> {
    const channel = `CHECK (channel IN ('phone', 'sms', 'whatsapp', 'whatsapp_call', 'messenger', 'instagram', 'chat'))`;
    await q.query(`
      CREATE TABLE conversations (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
        contact_id uuid,
        channel varchar(20) NOT NULL ${channel},
        status varchar(10) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'closed')),
        phone varchar(64),
        last_message_at timestamptz(3),
        closed_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_conversations_list ON conversations (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX ix_conversations_agent ON conversations (workspace_id, agent_id)`);
    await q.query(`CREATE INDEX ix_conversations_contact ON conversations (workspace_id, contact_id)`);

    await q.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
        contact_id uuid,
        channel varchar(20) NOT NULL ${channel},
        status varchar(10) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
        started_at timestamptz(3) NOT NULL,
        last_activity_at timestamptz(3) NOT NULL,
        ended_at timestamptz(3),
        end_reason varchar(20) CHECK (end_reason IN ('timeout', 'closed', 'call_ended')),
        evaluated_at timestamptz(3),
        summary text,
        message_count integer NOT NULL DEFAULT 0,
        timeout_ms integer NOT NULL,
        end_reported_at timestamptz(3),
        memorized_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX uq_sessions_one_active ON sessions (conversation_id) WHERE status = 'active'`,
    );
    await q.query(`CREATE INDEX ix_sessions_list ON sessions (workspace_id, started_at, id)`);
    await q.query(
      `CREATE INDEX ix_sessions_conversation ON sessions (workspace_id, conversation_id, started_at)`,
    );
    await q.query(`CREATE INDEX ix_sessions_agent ON sessions (workspace_id, agent_id, started_at)`);

    await q.query(`
      CREATE TABLE messages (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        session_id uuid REFERENCES sessions(id) ON DELETE SET NULL,
        agent_id uuid,
        contact_id uuid,
        channel varchar(20) NOT NULL ${channel},
        direction varchar(10) NOT NULL CHECK (direction IN ('inbound', 'outbound')),
        sender varchar(10) NOT NULL CHECK (sender IN ('customer', 'agent', 'system')),
        message_type varchar(20) NOT NULL DEFAULT 'text',
        content text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // The message export walks (created_at, id) per workspace; conversation reads walk it per conversation.
    await q.query(`CREATE INDEX ix_messages_export ON messages (workspace_id, created_at, id)`);
    await q.query(`CREATE INDEX ix_messages_conversation ON messages (conversation_id, created_at, id)`);
    await q.query(`CREATE INDEX ix_messages_session ON messages (session_id, created_at, id)`);

    await q.query(`
      CREATE TABLE evaluation_records (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        session_id uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        contact_id uuid,
        agent_id uuid,
        channel varchar(20) NOT NULL ${channel},
        feature varchar(100) NOT NULL,
        type varchar(10) NOT NULL CHECK (type IN ('boolean', 'score', 'label', 'text')),
        value jsonb,
        score numeric(5,2),
        label text,
        reason text,
        status varchar(10) NOT NULL CHECK (status IN ('completed', 'failed', 'skipped')),
        settings_version integer NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX uq_evaluation_records_feature ON evaluation_records (session_id, feature)`,
    );
    await q.query(
      `CREATE INDEX ix_evaluation_records_list ON evaluation_records (workspace_id, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX ix_evaluation_records_agent ON evaluation_records (workspace_id, agent_id, created_at)`,
    );

    await q.query(`
      CREATE TABLE outbox_events (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        type varchar(40) NOT NULL,
        agent_id uuid,
        data jsonb NOT NULL,
        dispatched_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_outbox_pending ON outbox_events (created_at, id) WHERE dispatched_at IS NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE outbox_events`);
    await q.query(`DROP TABLE evaluation_records`);
    await q.query(`DROP TABLE messages`);
    await q.query(`DROP TABLE sessions`);
    await q.query(`DROP TABLE conversations`);
  }
}
