import { MigrationInterface, QueryRunner } from 'typeorm';

/** Everything an agent holds: knowledge collections, webhooks, rules, settings, numbers and channel bindings. */
export class AgentConfiguration1763800000001 implements MigrationInterface {
  name = 'AgentConfiguration1763800000001';

  public async up(q: QueryRunner): Promise<void> {
    // Every child row: its own id, the tenant, the agent, an insertion sequence (ties resolve by insertion).
    const child = `
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        seq bigserial NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()`;
    await q.query(`
      CREATE TABLE agent_notes (${child},
        kind varchar(10) NOT NULL CHECK (kind IN ('guideline', 'note')),
        content text NOT NULL,
        "order" integer NOT NULL
      )`);
    await q.query(
      `CREATE INDEX ix_agent_notes_agent ON agent_notes (workspace_id, agent_id, kind, "order", seq)`,
    );
    await q.query(`
      CREATE TABLE agent_training (${child},
        content text NOT NULL,
        intent text,
        response text
      )`);
    await q.query(`CREATE INDEX ix_agent_training_agent ON agent_training (workspace_id, agent_id, seq)`);
    await q.query(`
      CREATE TABLE agent_procedures (${child},
        name varchar(200) NOT NULL,
        description text,
        steps jsonb NOT NULL DEFAULT '[]'
      )`);
    await q.query(`CREATE INDEX ix_agent_procedures_agent ON agent_procedures (workspace_id, agent_id, seq)`);
    await q.query(`
      CREATE TABLE agent_intents (${child},
        key varchar(100) NOT NULL,
        name varchar(200) NOT NULL,
        description text,
        recommendation_actions text,
        confidence_threshold real NOT NULL DEFAULT 0.5,
        is_system boolean NOT NULL DEFAULT false,
        intent_llm_handle_by_response boolean NOT NULL DEFAULT false,
        webhook jsonb,
        parameters jsonb NOT NULL DEFAULT '[]'
      )`);
    await q.query(`CREATE UNIQUE INDEX ux_agent_intents_key ON agent_intents (agent_id, key)`);
    await q.query(`CREATE INDEX ix_agent_intents_agent ON agent_intents (workspace_id, agent_id, seq)`);
    await q.query(`
      CREATE TABLE agent_webhooks (${child},
        url varchar(2048) NOT NULL,
        events text[] NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        secret_ciphertext text
      )`);
    await q.query(`CREATE INDEX ix_agent_webhooks_agent ON agent_webhooks (workspace_id, agent_id, seq)`);
    await q.query(`
      CREATE TABLE agent_routing_rules (${child},
        detection_mode varchar(10) NOT NULL CHECK (detection_mode IN ('exact', 'intent', 'both')),
        trigger_keyword text,
        department_name text,
        phrases jsonb NOT NULL DEFAULT '[]',
        ai_prompt text,
        voice_response text,
        voice_on_error text,
        voice_on_success text,
        destination_type varchar(30),
        destination text,
        destination_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
        transfer_type varchar(30),
        transfer_config jsonb NOT NULL DEFAULT '{}',
        priority integer NOT NULL,
        is_active boolean NOT NULL DEFAULT true
      )`);
    await q.query(
      `CREATE INDEX ix_agent_routing_rules_agent ON agent_routing_rules (workspace_id, agent_id, priority, seq)`,
    );
    await q.query(`
      CREATE TABLE agent_guard_rules (${child},
        name text,
        when_condition text,
        example_phrases jsonb NOT NULL DEFAULT '[]',
        then_action varchar(30) NOT NULL,
        selected_channels jsonb NOT NULL DEFAULT '[]',
        say_before_forwarding text,
        say_before_end text,
        destination_type varchar(30),
        destination text,
        destination_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
        is_active boolean NOT NULL DEFAULT true,
        is_default boolean NOT NULL DEFAULT false
      )`);
    await q.query(
      `CREATE INDEX ix_agent_guard_rules_agent ON agent_guard_rules (workspace_id, agent_id, seq)`,
    );

    // Settings: one row per workspace with agent_id NULL (the default) and one per overriding agent.
    await q.query(`CREATE SEQUENCE evaluation_settings_version_seq`);
    await q.query(`
      CREATE TABLE evaluation_settings (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid REFERENCES agents(id) ON DELETE CASCADE,
        is_override boolean NOT NULL DEFAULT true,
        settings jsonb,
        version bigint NOT NULL DEFAULT nextval('evaluation_settings_version_seq'),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX ux_evaluation_settings_default ON evaluation_settings (workspace_id) WHERE agent_id IS NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX ux_evaluation_settings_agent ON evaluation_settings (workspace_id, agent_id) WHERE agent_id IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE memorize_settings (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid REFERENCES agents(id) ON DELETE CASCADE,
        settings jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX ux_memorize_settings_default ON memorize_settings (workspace_id) WHERE agent_id IS NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX ux_memorize_settings_agent ON memorize_settings (workspace_id, agent_id) WHERE agent_id IS NOT NULL`,
    );

    // Numbers the workspace owns, and which agent serves which channel of each.
    await q.query(`
      CREATE TABLE phone_numbers (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        number varchar(16) NOT NULL,
        provider varchar(50) NOT NULL,
        status varchar(20) NOT NULL DEFAULT 'active',
        country_code varchar(2),
        type varchar(20),
        capabilities jsonb NOT NULL,
        is_external boolean NOT NULL DEFAULT false,
        source varchar(20) NOT NULL DEFAULT 'purchased',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX ux_phone_numbers_number ON phone_numbers (workspace_id, number)`);
    await q.query(
      `CREATE INDEX ix_phone_numbers_created ON phone_numbers (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(`
      CREATE TABLE phone_number_bindings (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        phone_number_id uuid NOT NULL REFERENCES phone_numbers(id) ON DELETE CASCADE,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        channel varchar(20) NOT NULL CHECK (channel IN ('call', 'sms', 'whatsapp', 'whatsapp_call')),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // One agent per number and channel.
    await q.query(
      `CREATE UNIQUE INDEX ux_phone_number_bindings_channel ON phone_number_bindings (phone_number_id, channel)`,
    );
    await q.query(
      `CREATE INDEX ix_phone_number_bindings_agent ON phone_number_bindings (workspace_id, agent_id)`,
    );
    await q.query(`
      CREATE TABLE messenger_pages (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        page_id varchar(100) NOT NULL,
        page_name varchar(200),
        agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX ux_messenger_pages_page ON messenger_pages (workspace_id, page_id)`);
    await q.query(`CREATE INDEX ix_messenger_pages_agent ON messenger_pages (workspace_id, agent_id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'messenger_pages',
      'phone_number_bindings',
      'phone_numbers',
      'memorize_settings',
      'evaluation_settings',
      'agent_guard_rules',
      'agent_routing_rules',
      'agent_webhooks',
      'agent_intents',
      'agent_procedures',
      'agent_training',
      'agent_notes',
    ])
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    await q.query(`DROP SEQUENCE IF EXISTS evaluation_settings_version_seq`);
  }
}
