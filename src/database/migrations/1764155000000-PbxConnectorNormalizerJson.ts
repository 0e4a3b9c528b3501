import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A PBX connector's `normalizer` holds the source product's object (`{default_prefix, condition_length,
 * condition_prefix}`) or the text form: JSON, the texts stored so far kept as JSON strings.
 */
export class PbxConnectorNormalizerJson1764155000000 implements MigrationInterface {
  name = 'PbxConnectorNormalizerJson1764155000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE pbx_extension_connectors ALTER COLUMN normalizer TYPE jsonb USING to_jsonb(normalizer)`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE pbx_extension_connectors ALTER COLUMN normalizer TYPE varchar(200)
         USING left(CASE WHEN jsonb_typeof(normalizer) = 'string' THEN normalizer #>> '{}' ELSE normalizer::text END, 200)`,
    );
  }
}
