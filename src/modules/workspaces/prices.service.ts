import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { canonicalDecimal, parseCurrency, parsePrice, PRICE_FIELDS, PriceField, PriceTable } from './prices';
import { WorkspacePrices } from './workspace-prices.entity';
import { PriceColumns, WorkspacePricesRepository } from './workspace-prices.repository';
import { WorkspacesService } from './workspaces.service';

const COLUMN: Record<PriceField, keyof Omit<PriceColumns, 'currency'>> = {
  llm_prompt_per_1k: 'llmPromptPer1k',
  llm_completion_per_1k: 'llmCompletionPer1k',
  stt_per_minute: 'sttPerMinute',
  tts_per_1k_characters: 'ttsPer1kCharacters',
  call_per_minute: 'callPerMinute',
};

function tableOf(row: WorkspacePrices): PriceTable {
  const prices = Object.fromEntries(
    PRICE_FIELDS.map((f) => [f, canonicalDecimal(String(row[COLUMN[f]]))]),
  ) as Record<PriceField, string>;
  return { currency: row.currency, prices, updatedAt: row.updatedAt };
}

/**
 * A workspace's optional price table, set by operators (internal API, admin CLI). Without one, usage has no cost:
 * none is invented.
 */
@Injectable()
export class PricesService {
  constructor(
    private readonly repo: WorkspacePricesRepository,
    private readonly workspaces: WorkspacesService,
  ) {}

  /** The table of a workspace (by id), or null when none is set. */
  async forWorkspace(workspaceId: WorkspaceId): Promise<PriceTable | null> {
    const row = await this.repo.find(workspaceId);
    return row ? tableOf(row) : null;
  }

  /** 404 `Price table not found` when the workspace has none. */
  async get(slug: string): Promise<PriceTable> {
    const ws = await this.workspaces.getBySlug(slug);
    const table = await this.forWorkspace(ws.id);
    if (!table) throw AppException.notFound('Price table');
    return table;
  }

  /**
   * Replaces the table: `currency` is required, each price optional (0 when left out). Every value is checked
   * before anything is written; bad ones are 422 naming each field.
   */
  async set(slug: string, input: Partial<Record<PriceField | 'currency', unknown>>): Promise<PriceTable> {
    const ws = await this.workspaces.getBySlug(slug);
    const errors: AppException[] = [];
    const attempt = <T>(parse: () => T): T | null => {
      try {
        return parse();
      } catch (err) {
        if (!(err instanceof AppException)) throw err;
        errors.push(err);
        return null;
      }
    };
    const currency = attempt(() => parseCurrency(input.currency));
    const columns = { currency } as PriceColumns;
    for (const field of PRICE_FIELDS)
      columns[COLUMN[field]] = attempt(() =>
        input[field] === undefined ? '0' : parsePrice(field, input[field]),
      )!;
    if (errors.length) throw AppException.validation(errors.flatMap((e) => e.options.fieldErrors ?? []));
    return tableOf(await this.repo.put(ws.id, columns));
  }

  /** Removes the table: from then on every cost is null. Answers whether there was one. */
  async clear(slug: string): Promise<boolean> {
    const ws = await this.workspaces.getBySlug(slug);
    return this.repo.remove(ws.id);
  }
}
