import { MigrationInterface, QueryRunner } from 'typeorm';
import { createConfigVersionTriggers, dropConfigVersionTriggers } from '../config-version-triggers';

/**
 * A turn's context now says whether the agent has any knowledge (`knowledge_index_stats`), so a turn of an agent
 * without any skips the search; the stats rows move the workspace's agent configuration version like every other
 * table the context reads (see 1764000000000), so a call's kept context learns of a sync at its next turn.
 */
export class KnowledgeStatsConfigVersion1764090000000 implements MigrationInterface {
  name = 'KnowledgeStatsConfigVersion1764090000000';

  public async up(q: QueryRunner): Promise<void> {
    await createConfigVersionTriggers(q, ['knowledge_index_stats']);
  }

  public async down(q: QueryRunner): Promise<void> {
    await dropConfigVersionTriggers(q, ['knowledge_index_stats']);
  }
}
