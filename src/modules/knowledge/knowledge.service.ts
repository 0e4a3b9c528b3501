import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { AppException } from '@/common/errors/app.exception';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { AgentsService } from '@/modules/agents/agents.service';
import { EMBEDDINGS, Embeddings, EmbeddingsError } from '@/providers/embeddings/embeddings.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { DataSourcesRepository } from './data-sources.repository';
import { DataSourcesService } from './data-sources.service';
import { DataSourceDetailResponse, SearchResultResponse } from './dto/responses';
import { KnowledgeIndexRepository, SnapshotSource } from './knowledge-index.repository';
import { KnowledgeSearchRepository, SearchHit } from './knowledge-search.repository';
import { EMBED_BATCH, KnowledgeVectorsRepository } from './knowledge-vectors.repository';
import { columnName, recordJsonSql, recordTextSql } from './records-table';

/** A passage retrieved for a reply prompt. */
export interface Passage {
  content: string;
  source: string;
  score: number;
}

/** Prompt room for retrieved knowledge, in tokens (about four characters each). */
export const KNOWLEDGE_BUDGET_TOKENS = 1200;
const CHARS_PER_TOKEN = 4;
/** Passages considered for a reply, best first, until the budget is spent. */
const PASSAGES = 5;
/** Earlier customer turns searched with the last one, and the weight of the one just before it. */
const EARLIER_TURNS = 3;
const EARLIER_WEIGHT = 0.4;
const MAX_TURN_CHARS = 2000;

/** Passages taken from each ranking (words, vectors) into the fusion. */
const FUSION_DEPTH = 50;
/** The k of reciprocal rank fusion: a passage scores 1 / (k + rank) in each ranking it appears in. */
const RRF_K = 60;

/** Longest text indexed per record (PostgreSQL caps a tsvector at 1 MB). */
const MAX_INDEXED_CHARS = 100_000;

/** How a record becomes searchable text: a chunk's content, or a table row as `column: value` lines. */
function contentSql(ds: SnapshotSource): string {
  const content = ds.type !== 'table' ? ds.columns.find((c) => c.name === 'content') : undefined;
  const text = content ? `r.${columnName(content.id)}` : recordTextSql(ds.columns, 'r');
  return `left(coalesce(${text}, ''), ${MAX_INDEXED_CHARS})`;
}

/**
 * Assignment of data sources to agents, the sync that snapshots them into each agent's index, and the search
 * over that index (used by the HTTP route and by the conversation runtime).
 */
@Injectable()
export class KnowledgeService {
  private readonly logger = new Logger(KnowledgeService.name);

  constructor(
    private readonly sources: DataSourcesRepository,
    private readonly dataSources: DataSourcesService,
    private readonly index: KnowledgeIndexRepository,
    private readonly words: KnowledgeSearchRepository,
    private readonly vectors: KnowledgeVectorsRepository,
    private readonly agents: AgentsService,
    @InjectQueue(QUEUES.knowledge) private readonly queue: Queue,
    @Inject(EMBEDDINGS) private readonly embeddings: Embeddings,
  ) {}

  async assign(
    workspaceId: WorkspaceId,
    dataSourceId: string,
    agentId: string,
  ): Promise<DataSourceDetailResponse> {
    await this.dataSources.get(workspaceId, dataSourceId);
    if (!(await this.agents.exists(workspaceId, agentId)))
      throw AppException.invalid(
        'agent_uuid',
        'agent_uuid does not name an agent of this workspace',
        'VALIDATION_ERROR',
      );
    await this.index.assign(workspaceId, dataSourceId, agentId);
    return this.dataSources.detail(workspaceId, dataSourceId);
  }

  async unassign(
    workspaceId: WorkspaceId,
    dataSourceId: string,
    agentId: string,
  ): Promise<DataSourceDetailResponse> {
    await this.dataSources.get(workspaceId, dataSourceId);
    if (!(await this.index.unassign(workspaceId, dataSourceId, agentId)))
      throw AppException.notFound('Assignment');
    return this.dataSources.detail(workspaceId, dataSourceId);
  }

  /** Queues the rebuild of every assigned agent's index of this source and answers at once. */
  async sync(workspaceId: WorkspaceId, dataSourceId: string): Promise<DataSourceDetailResponse> {
    await this.dataSources.get(workspaceId, dataSourceId);
    await this.sources.patch(workspaceId, dataSourceId, { syncStatus: 'queued', syncError: null });
    const payload: JobPayloads['knowledge']['sync'] = { workspaceId, dataSourceId };
    await this.queue.add('sync', payload);
    return this.dataSources.detail(workspaceId, dataSourceId);
  }

  /** The job: snapshots the records as they are now; later changes stay invisible until the next sync. */
  async runSync(workspaceId: WorkspaceId, dataSourceId: string): Promise<void> {
    const ds = await this.sources.findById(workspaceId, dataSourceId);
    if (!ds) return;
    await this.sources.patch(workspaceId, ds.id, { syncStatus: 'syncing' });
    try {
      await this.index.rebuild(workspaceId, ds.id, (source) => ({
        dataSql: recordJsonSql(source.columns, 'r'),
        contentSql: contentSql(source),
      }));
      await this.index.analyze();
      const embedError = await this.embedPending(workspaceId, ds.id);
      await this.sources.patch(workspaceId, ds.id, {
        syncStatus: 'synced',
        syncError: embedError,
        lastSyncedAt: new Date(),
      });
    } catch (err) {
      await this.sources.patch(workspaceId, ds.id, {
        syncStatus: 'failed',
        syncError: `sync failed: ${(err as Error).message}`.slice(0, 2000),
      });
      throw err;
    }
  }

  /**
   * With an embeddings model configured, gives every passage of the source a vector (one request per batch of
   * records, each record once whatever the number of agents). A model failure leaves the rest without vectors
   * (found by words only) and is answered as the sync's error; the sync itself stands.
   */
  private async embedPending(workspaceId: WorkspaceId, dataSourceId: string): Promise<string | null> {
    if (!this.embeddings.isConfigured()) return null;
    const model = this.embeddings.model;
    let after = 0;
    try {
      for (;;) {
        const batch = await this.vectors.pending(workspaceId, dataSourceId, model, after, EMBED_BATCH);
        if (!batch.length) return null;
        after = batch[batch.length - 1].recordId;
        const vectors = await this.embeddings.embed(batch.map((b) => b.content));
        await this.vectors.store(
          workspaceId,
          dataSourceId,
          model,
          batch.map((b, i) => ({ recordId: b.recordId, vector: vectors[i] })),
        );
      }
    } catch (err) {
      if (!(err instanceof EmbeddingsError)) throw err;
      this.logger.warn({ dataSourceId, err: err.message }, 'passage embeddings failed');
      return `embeddings failed (search by words only): ${err.message}`.slice(0, 2000);
    }
  }

  /**
   * What the agent can see (only sources assigned to it, as of their last sync) ranked for `query`, best first.
   * 404 for an unknown agent.
   */
  async search(
    workspaceId: WorkspaceId,
    agentId: string,
    query: string,
    limit = 5,
  ): Promise<SearchResultResponse[]> {
    await this.agents.get(workspaceId, agentId);
    return this.ranked(workspaceId, agentId, [{ text: query, weight: 1 }], query, limit);
  }

  /**
   * The ranking for a conversation: the customer's last turn, with their earlier turns (oldest first) weighing
   * less, so that a follow-up such as "and on Sunday?" still finds the opening hours.
   */
  async searchTurns(
    workspaceId: WorkspaceId,
    agentId: string,
    customerTurns: string[],
    limit = PASSAGES,
  ): Promise<SearchResultResponse[]> {
    const turns = customerTurns.filter((t) => t.trim()).slice(-1 - EARLIER_TURNS);
    if (!turns.length) return [];
    const parts = turns.map((text, i) => ({
      text: text.slice(0, MAX_TURN_CHARS),
      weight: i === turns.length - 1 ? 1 : EARLIER_WEIGHT / (turns.length - 1 - i),
    }));
    return this.ranked(workspaceId, agentId, parts, parts[parts.length - 1].text, limit);
  }

  /** The passages for the next reply of a conversation, best first, as many as fit in `budgetTokens`. */
  async passagesFor(
    workspaceId: WorkspaceId,
    agentId: string,
    customerTurns: string[],
    budgetTokens = KNOWLEDGE_BUDGET_TOKENS,
  ): Promise<Passage[]> {
    const hits = await this.searchTurns(workspaceId, agentId, customerTurns);
    const passages: Passage[] = [];
    let left = budgetTokens * CHARS_PER_TOKEN;
    for (const h of hits) {
      const data = h.record.data;
      const full = h.record.kind === 'chunk' ? String(data.content) : rowText(data);
      const content = full.slice(0, left);
      // A passage cut to a few words would mislead more than help.
      if (content.length < Math.min(full.length, 200)) break;
      passages.push({ content, source: h.data_source.name, score: h.score });
      left -= content.length;
    }
    return passages;
  }

  /** Word ranking alone, or fused with vector ranking (reciprocal rank fusion) when embeddings are on. */
  private async ranked(
    workspaceId: WorkspaceId,
    agentId: string,
    parts: { text: string; weight: number }[],
    phrase: string,
    limit: number,
  ): Promise<SearchResultResponse[]> {
    const n = Math.min(Math.max(limit, 1), 50);
    if (!this.embeddings.isConfigured())
      return (await this.words.search(workspaceId, agentId, parts, phrase, n)).map(toResult);
    const [lexical, nearest] = await Promise.all([
      this.words.search(workspaceId, agentId, parts, phrase, FUSION_DEPTH),
      this.nearest(workspaceId, agentId, parts),
    ]);
    const fused = new Map<number, number>();
    const add = (id: number, rank: number) => fused.set(id, (fused.get(id) ?? 0) + 1 / (RRF_K + rank + 1));
    lexical.forEach((h, rank) => add(h.id, rank));
    nearest.forEach((h, rank) => add(h.id, rank));
    const top = [...fused.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, n);
    const known = new Map(lexical.map((h) => [h.id, h]));
    const missing = await this.words.passages(
      workspaceId,
      agentId,
      top.map(([id]) => id).filter((id) => !known.has(id)),
    );
    for (const h of missing) known.set(h.id, h);
    return top.flatMap(([id, score]) => {
      const hit = known.get(id);
      return hit ? [toResult({ ...hit, score })] : [];
    });
  }

  /** The passages nearest the question's vector; none when the model fails (words still answer). */
  private async nearest(workspaceId: WorkspaceId, agentId: string, parts: { text: string }[]) {
    try {
      const [vector] = await this.embeddings.embed([parts.map((p) => p.text).join('\n')]);
      return await this.vectors.nearest(workspaceId, agentId, vector, this.embeddings.model, FUSION_DEPTH);
    } catch (err) {
      if (!(err instanceof EmbeddingsError)) throw err;
      this.logger.warn({ agentId, err: err.message }, 'query embedding failed; ranking by words only');
      return [];
    }
  }
}

function toResult(h: SearchHit): SearchResultResponse {
  return {
    data_source: { uuid: h.dataSourceId, name: h.dataSourceName, type: h.dataSourceType },
    record: {
      id: h.recordId,
      kind: h.dataSourceType !== 'table' && typeof h.data.content === 'string' ? 'chunk' : 'row',
      data: h.data,
    },
    snippet: h.snippet,
    score: Math.round(h.score * 10000) / 10000,
  };
}

/** A table row for a prompt: `column: value` lines of its set values. */
function rowText(data: Record<string, unknown>): string {
  return Object.entries(data)
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('\n');
}
