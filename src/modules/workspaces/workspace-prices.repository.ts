import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { WorkspacePrices } from './workspace-prices.entity';

/** Columns of the price table beside the currency, as the entity names them. */
export type PriceColumns = Pick<
  WorkspacePrices,
  | 'currency'
  | 'llmPromptPer1k'
  | 'llmCompletionPer1k'
  | 'sttPerMinute'
  | 'ttsPer1kCharacters'
  | 'callPerMinute'
>;

/** A workspace's price table: one row, keyed by the workspace. */
@Injectable()
export class WorkspacePricesRepository {
  constructor(@InjectRepository(WorkspacePrices) private readonly repo: Repository<WorkspacePrices>) {}

  find(workspaceId: WorkspaceId): Promise<WorkspacePrices | null> {
    return this.repo.findOne({ where: { workspaceId } });
  }

  /** Writes the whole table (a new one or a replacement) and answers it as stored. */
  async put(workspaceId: WorkspaceId, p: PriceColumns): Promise<WorkspacePrices> {
    await this.repo.query(
      `INSERT INTO workspace_prices (workspace_id, currency, llm_prompt_per_1k, llm_completion_per_1k,
                                     stt_per_minute, tts_per_1k_characters, call_per_minute)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (workspace_id) DO UPDATE SET
         currency = EXCLUDED.currency, llm_prompt_per_1k = EXCLUDED.llm_prompt_per_1k,
         llm_completion_per_1k = EXCLUDED.llm_completion_per_1k, stt_per_minute = EXCLUDED.stt_per_minute,
         tts_per_1k_characters = EXCLUDED.tts_per_1k_characters, call_per_minute = EXCLUDED.call_per_minute,
         updated_at = now()`,
      [
        workspaceId,
        p.currency,
        p.llmPromptPer1k,
        p.llmCompletionPer1k,
        p.sttPerMinute,
        p.ttsPer1kCharacters,
        p.callPerMinute,
      ],
    );
    return (await this.find(workspaceId))!;
  }

  /** Whether there was a table to remove. */
  async remove(workspaceId: WorkspaceId): Promise<boolean> {
    const [, count] = (await this.repo.query(`DELETE FROM workspace_prices WHERE workspace_id = $1`, [
      workspaceId,
    ])) as [unknown, number];
    return count > 0;
  }
}
