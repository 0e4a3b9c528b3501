import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ExportRow, MessageExportRepository } from './message-export.repository';
import { ExportMessagesQuery } from './dto/export-messages.query';
import { MessageExportDto } from './dto/export-response.dto';
import { ExportCursorCodec, ExportPosition, ExportScope } from './export-cursor';
import { parseRange } from './time-range';

/** Messages younger than this are left for a later walk (covers clocks of writers that set created_at). */
export const EXPORT_SETTLE_SECONDS = 1;
/** Open transactions older than this no longer hold the horizon back (a stuck session must not stall exports). */
export const EXPORT_MAX_OPEN_TRANSACTION_SECONDS = 600;

/** The raw message export: keyset pages over (created_at, id) up to a horizon fixed for the whole walk. */
@Injectable()
export class MessageExportService {
  private codec?: ExportCursorCodec;

  constructor(
    private readonly repo: MessageExportRepository,
    private readonly workspaces: WorkspacesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Built on first use: processes that never serve the export (CLI, workers) need no key for it. */
  private get cursors(): ExportCursorCodec {
    if (!this.codec) {
      const key = this.config.auth.encryptionKey;
      if (!key) throw new Error('ENCRYPTION_KEY is required to sign export cursors');
      this.codec = new ExportCursorCodec(key);
    }
    return this.codec;
  }

  async page(workspaceId: WorkspaceId, query: ExportMessagesQuery): Promise<MessageExportDto> {
    const range = parseRange(query.from, query.to);
    const scope: ExportScope = {
      workspaceId,
      channel: query.channel ?? null,
      agentUuid: query.agent_uuid?.toLowerCase() ?? null,
      from: range.from,
      to: range.to,
    };
    let cursor: ExportPosition | null = null;
    if (query.cursor !== undefined) {
      cursor = this.cursors.decode(scope, query.cursor);
      if (!cursor)
        throw AppException.invalid(
          'cursor',
          'cursor is not a next_cursor issued for this workspace and these filters',
        );
    }
    // The policy is read while the page is fetched; nothing is sent before it is known.
    const reading = this.readPage(query, scope, range.from, cursor);
    reading.catch(() => undefined);
    const { ANALYTICS_MESSAGES_EXPORT: policy } = await this.workspaces.getPolicies(workspaceId);
    if (policy === 'disabled')
      throw new AppException('FORBIDDEN', 'The message export is disabled by workspace policy');
    const { rows, horizon } = await reading;

    const hasMore = rows.length > query.limit;
    if (hasMore) rows.length = query.limit;
    if (policy === 'masked')
      for (const row of rows) {
        row.content = '***';
        row.content_disclosure = 'masked';
      }
    const last = rows[rows.length - 1];
    return {
      meta: {
        policy,
        channel: query.channel ?? null,
        from: range.from === null ? null : new Date(range.from).toISOString(),
        to: new Date(horizon).toISOString(),
        generated_at: new Date().toISOString(),
      },
      messages: rows,
      pagination: {
        next_cursor: hasMore
          ? this.cursors.encode(scope, {
              horizon,
              createdAt: Date.parse(last.created_at),
              id: last.message_uuid,
            })
          : null,
        has_more: hasMore,
        limit: query.limit,
      },
    };
  }

  /** The walk's horizon (fixed on its first page, then carried by the cursor) and the page's rows. */
  private async readPage(
    query: ExportMessagesQuery,
    scope: ExportScope,
    from: number | null,
    cursor: ExportPosition | null,
  ): Promise<{ rows: ExportRow[]; horizon: number }> {
    let horizon: number;
    if (cursor) horizon = cursor.horizon;
    else {
      const settled = await this.repo.settledHorizon(
        EXPORT_SETTLE_SECONDS,
        EXPORT_MAX_OPEN_TRANSACTION_SECONDS,
      );
      horizon = scope.to === null ? settled : Math.min(scope.to, settled);
      if (from !== null) horizon = Math.max(horizon, from);
    }
    const rows = await this.repo.exportPage(scope.workspaceId, {
      channel: query.channel ?? null,
      agentId: scope.agentUuid,
      from,
      upper: horizon,
      after:
        cursor?.createdAt !== undefined && cursor.id ? { createdAt: cursor.createdAt, id: cursor.id } : null,
      limit: query.limit,
      includeTools: query.include_system === 'true',
    });
    return { rows, horizon };
  }
}
