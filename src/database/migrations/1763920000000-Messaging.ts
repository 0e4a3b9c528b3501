import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Messaging: provider state of messages sent or received through SMS, WhatsApp, Messenger and Instagram; the
 * number or page and customer address of each messaging conversation (its thread); WhatsApp senders, templates
 * and template settings.
 */
export class Messaging1763920000000 implements MigrationInterface {
  name = 'Messaging1763920000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE whatsapp_numbers (
        id uuid PRIMARY KEY REFERENCES phone_numbers(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        meta_phone_number_id varchar(64) NOT NULL,
        waba_id varchar(64),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // Inbound routing finds the number from Meta's phone_number_id alone: one workspace per sender.
    await q.query(`CREATE UNIQUE INDEX ux_whatsapp_numbers_meta ON whatsapp_numbers (meta_phone_number_id)`);
    await q.query(`CREATE INDEX ix_whatsapp_numbers_ws ON whatsapp_numbers (workspace_id, waba_id)`);

    await q.query(`
      CREATE TABLE messaging_threads (
        id uuid PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        channel varchar(20) NOT NULL,
        phone_number_id uuid REFERENCES phone_numbers(id) ON DELETE SET NULL,
        page_id varchar(100),
        customer_address varchar(64) NOT NULL,
        handled_by varchar(10) NOT NULL DEFAULT 'AI' CHECK (handled_by IN ('AI', 'Human')),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_messaging_threads_lookup ON messaging_threads
         (workspace_id, channel, customer_address, phone_number_id, created_at DESC)`,
    );

    await q.query(`
      CREATE TABLE provider_messages (
        id uuid PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        phone_number_id uuid REFERENCES phone_numbers(id) ON DELETE SET NULL,
        channel varchar(20) NOT NULL,
        direction varchar(10) NOT NULL CHECK (direction IN ('inbound', 'outbound')),
        from_address varchar(64) NOT NULL,
        to_address varchar(64) NOT NULL,
        provider varchar(20) NOT NULL,
        provider_message_id varchar(255),
        delivery_status varchar(12) NOT NULL
          CHECK (delivery_status IN ('queued', 'sent', 'delivered', 'read', 'failed', 'undelivered', 'received')),
        error jsonb,
        status_updated_at timestamptz(3) NOT NULL DEFAULT now(),
        template jsonb,
        metadata jsonb NOT NULL DEFAULT '{}',
        is_simulation boolean NOT NULL DEFAULT false,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // Repeated provider deliveries are recognised by the provider's id.
    await q.query(
      `CREATE UNIQUE INDEX ux_provider_messages_provider_id ON provider_messages (provider, provider_message_id)
         WHERE provider_message_id IS NOT NULL`,
    );
    // The 24-hour window: the contact's last inbound WhatsApp message to a number.
    await q.query(
      `CREATE INDEX ix_provider_messages_inbound ON provider_messages
         (workspace_id, phone_number_id, channel, from_address, created_at DESC) WHERE direction = 'inbound'`,
    );

    await q.query(`
      CREATE TABLE whatsapp_templates (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        waba_id varchar(64) NOT NULL,
        phone_number_id uuid REFERENCES phone_numbers(id) ON DELETE SET NULL,
        provider varchar(20) NOT NULL,
        name varchar(512) NOT NULL,
        language varchar(20) NOT NULL,
        category varchar(20) NOT NULL,
        status varchar(12) NOT NULL,
        rejection_reason text,
        components jsonb NOT NULL,
        content text NOT NULL DEFAULT '',
        parameter_count integer NOT NULL DEFAULT 0,
        template_id varchar(64),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX ux_whatsapp_templates_name ON whatsapp_templates (workspace_id, waba_id, name, language)`,
    );
    await q.query(`CREATE INDEX ix_whatsapp_templates_meta ON whatsapp_templates (template_id)`);

    await q.query(`
      CREATE TABLE whatsapp_template_settings (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        template_id uuid REFERENCES whatsapp_templates(id) ON DELETE SET NULL,
        params jsonb NOT NULL,
        status varchar(10) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_whatsapp_template_settings_template ON whatsapp_template_settings (workspace_id, template_id)`,
    );
    // A number's unique provider routing: one workspace per Twilio number (inbound SMS finds it by `To`).
    await q.query(
      `CREATE INDEX ix_phone_numbers_routing ON phone_numbers (number) WHERE provider <> 'sandbox'`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_phone_numbers_routing`);
    await q.query(`DROP TABLE whatsapp_template_settings`);
    await q.query(`DROP TABLE whatsapp_templates`);
    await q.query(`DROP TABLE provider_messages`);
    await q.query(`DROP TABLE messaging_threads`);
    await q.query(`DROP TABLE whatsapp_numbers`);
  }
}
