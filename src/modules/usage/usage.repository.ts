import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ConversationUsage } from './conversation-usage.entity';
import { countersOf, REPORTED, ReportedCounters, UsageCounters } from './usage-counters';

/** One conversation's pending additions. */
export interface UsageAddition {
  workspaceId: WorkspaceId;
  conversationId: string;
  add: ReportedCounters;
}

const COLUMNS: Record<(typeof REPORTED)[number], string> = {
  promptTokens: 'prompt_tokens',
  completionTokens: 'completion_tokens',
  sttMs: 'stt_ms',
  ttsCharacters: 'tts_characters',
  toolCalls: 'tool_calls',
  forwardedSeconds: 'forwarded_seconds',
};

/**
 * The usage counters (`conversation_usage`, one row per conversation), added to with an upsert `+=`. A call's own
 * leg is read from its call record (`calls`, owned by the calls module) rather than copied: the call's duration is
 * already stored with it.
 */
@Injectable()
export class UsageRepository extends WorkspaceScopedRepository<ConversationUsage> {
  constructor(@InjectRepository(ConversationUsage) repo: Repository<ConversationUsage>) {
    super(repo);
  }

  /**
   * Adds to several conversations' counters in one statement (their rows created on first use). A conversation of
   * another workspace is never touched: the update requires the row's workspace to be the addition's.
   */
  async add(additions: UsageAddition[]): Promise<void> {
    if (!additions.length) return;
    const params: unknown[] = [];
    const rows = additions.map((a) => {
      const values = [a.conversationId, a.workspaceId, ...REPORTED.map((k) => a.add[k])].map((v) => {
        params.push(v);
        return `$${params.length}`;
      });
      return `(${values.join(', ')})`;
    });
    const columns = REPORTED.map((k) => COLUMNS[k]);
    await this.sql(
      `INSERT INTO conversation_usage AS u (id, workspace_id, ${columns.join(', ')})
       VALUES ${rows.join(', ')}
       ON CONFLICT (id) DO UPDATE SET ${columns.map((c) => `${c} = u.${c} + EXCLUDED.${c}`).join(', ')},
              updated_at = now()
        WHERE u.workspace_id = EXCLUDED.workspace_id`,
      params,
    );
  }

  /** A conversation's counters with its call's own leg; zeros when it has used nothing (or is not in the workspace). */
  async read(workspaceId: WorkspaceId, conversationId: string): Promise<UsageCounters> {
    const [row] = await this.sql<Record<string, string>[]>(
      `SELECT u.prompt_tokens AS "promptTokens", u.completion_tokens AS "completionTokens", u.stt_ms AS "sttMs",
              u.tts_characters AS "ttsCharacters", u.tool_calls AS "toolCalls",
              u.forwarded_seconds AS "forwardedSeconds",
              CASE WHEN k.answered_at IS NOT NULL AND k.ended_at IS NOT NULL
                   THEN floor(extract(epoch FROM k.ended_at - k.answered_at)) END AS "callSeconds"
         FROM (SELECT $2::uuid AS id) x
         LEFT JOIN conversation_usage u ON u.workspace_id = $1 AND u.id = x.id
         LEFT JOIN calls k ON k.workspace_id = $1 AND k.id = x.id`,
      [workspaceId, conversationId],
    );
    return countersOf(row ?? {});
  }
}
