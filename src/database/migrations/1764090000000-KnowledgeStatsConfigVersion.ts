import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A turn's context now says whether the agent has any knowledge (`knowledge_index_stats`), so a turn of an agent
 * without any skips the search; the stats rows move the workspace's agent configuration version like every other
 * table the context reads (see 1764000000000), so a call's kept context learns of a sync at its next turn.
 */
const EVENTS: [string, string][] = [
  ['INSERT', 'NEW TABLE AS changed'],
  ['UPDATE', 'NEW TABLE AS changed'],
  ['DELETE', 'OLD TABLE AS changed'],
];

export class KnowledgeStatsConfigVersion1764090000000 implements MigrationInterface {
  name = 'KnowledgeStatsConfigVersion1764090000000';

  public async up(q: QueryRunner): Promise<void> {
    for (const [event, referencing] of EVENTS)
      await q.query(
        `CREATE TRIGGER knowledge_index_stats_config_${event.toLowerCase()} AFTER ${event} ON knowledge_index_stats
           REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION bump_agent_config_version()`,
      );
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const [event] of EVENTS)
      await q.query(
        `DROP TRIGGER IF EXISTS knowledge_index_stats_config_${event.toLowerCase()} ON knowledge_index_stats`,
      );
  }
}
