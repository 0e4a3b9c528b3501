import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * PBX extension connectors (an agent's SIP registrar for forwards to extensions), SIP trunk connections (a
 * customer's SIP gateway carrying a number of theirs) and which external numbers ride on which trunk. Passwords are
 * stored sealed (AES-256-GCM with ENCRYPTION_KEY), never in clear.
 */
export class Sip1763980000000 implements MigrationInterface {
  name = 'Sip1763980000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE pbx_extension_connectors (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        phone_number varchar(32),
        registrar_server varchar(253) NOT NULL,
        username_extension varchar(64) NOT NULL,
        pbx_password_ciphertext text,
        allowed_ip varchar(64),
        setup_mode varchar(10) NOT NULL DEFAULT 'both' CHECK (setup_mode IN ('inbound', 'outbound', 'both')),
        connection_type varchar(3) NOT NULL DEFAULT 'udp' CHECK (connection_type IN ('udp', 'tcp', 'tls')),
        port int NOT NULL DEFAULT 5060 CHECK (port BETWEEN 1 AND 65535),
        auth_username varchar(64),
        auth_password_ciphertext text,
        normalizer varchar(200),
        status varchar(10) NOT NULL DEFAULT 'active',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_pbx_connectors_list ON pbx_extension_connectors (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_pbx_connectors_agent ON pbx_extension_connectors (workspace_id, agent_id)`,
    );
    await q.query(`
      CREATE TABLE sip_trunk_connections (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name varchar(100) NOT NULL,
        phone_number_id uuid NOT NULL REFERENCES phone_numbers(id) ON DELETE CASCADE,
        gateway varchar(253) NOT NULL,
        secondary_gateway varchar(253),
        username varchar(64),
        password_ciphertext text,
        status varchar(10) NOT NULL DEFAULT 'active',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_sip_trunks_list ON sip_trunk_connections (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(`
      CREATE TABLE sip_trunk_numbers (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        phone_number_id uuid NOT NULL REFERENCES phone_numbers(id) ON DELETE CASCADE,
        connection_id uuid REFERENCES sip_trunk_connections(id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX ux_sip_trunk_numbers_number ON sip_trunk_numbers (phone_number_id)`);
    await q.query(`CREATE INDEX ix_sip_trunk_numbers_ws ON sip_trunk_numbers (workspace_id, connection_id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sip_trunk_numbers`);
    await q.query(`DROP TABLE sip_trunk_connections`);
    await q.query(`DROP TABLE pbx_extension_connectors`);
  }
}
