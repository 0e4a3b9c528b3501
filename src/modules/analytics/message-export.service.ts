import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { CHANNEL_LABELS } from '@/modules/conversations/channels';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';
import { AnalyticsRepository, ExportRow } from './analytics.repository';
import { ExportMessagesQuery } from './dto/export-messages.query';
import { ContentDisclosure, ExportedMessageDto, MessageExportDto } from './dto/export-response.dto';
import { ExportCursorCodec, ExportPosition, ExportScope } from './export-cursor';
import { parseRange } from './time-range';

/** Messages younger than this are left for a later walk (covers clocks of writers that set created_at). */
export const EXPORT_SETTLE_SECONDS = 1;
/** Open transactions older than this no longer hold the horizon back (a stuck session must not stall exports). */
export const EXPORT_MAX_OPEN_TRANSACTION_SECONDS = 600;

/** The raw message export: keyset pages over (created_at, id) up to a horizon fixed for the whole walk. */
@Injectable()
export class MessageExportService {
  private readonly cursors: ExportCursorCodec;

  constructor(
    private readonly repo: AnalyticsRepository,
    private readonly workspaces: WorkspacesService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    if (!config.auth.encryptionKey) throw new Error('ENCRYPTION_KEY is required to sign export cursors');
    this.cursors = new ExportCursorCodec(config.auth.encryptionKey);
  }

  async page(workspaceId: string, query: ExportMessagesQuery): Promise<MessageExportDto> {
    const { ANALYTICS_MESSAGES_EXPORT: policy } = await this.workspaces.getPolicies(workspaceId);
    if (policy === 'disabled')
      throw new AppException('FORBIDDEN', 'The message export is disabled by workspace policy');

    const range = parseRange(query.from, query.to);
    const scope: ExportScope = {
      workspaceId,
      channel: query.channel ?? null,
      agentUuid: query.agent_uuid?.toLowerCase() ?? null,
      from: range.from,
      to: range.to,
    };
    let position: ExportPosition;
    if (query.cursor !== undefined) {
      const decoded = this.cursors.decode(scope, query.cursor);
      if (!decoded)
        throw AppException.invalid(
          'cursor',
          'cursor is not a next_cursor issued for this workspace and these filters',
        );
      position = decoded;
    } else {
      const settled = await this.repo.settledHorizon(
        EXPORT_SETTLE_SECONDS,
        EXPORT_MAX_OPEN_TRANSACTION_SECONDS,
      );
      let horizon = range.to === null ? settled : Math.min(range.to, settled);
      if (range.from !== null) horizon = Math.max(horizon, range.from);
      position = { horizon };
    }

    const masked = policy === 'masked';
    const rows = await this.repo.exportPage(workspaceId, {
      channel: query.channel ?? null,
      agentId: scope.agentUuid,
      from: range.from,
      upper: position.horizon,
      after:
        position.createdAt !== undefined && position.id
          ? { createdAt: position.createdAt, id: position.id }
          : null,
      limit: query.limit,
      masked,
    });
    const hasMore = rows.length > query.limit;
    const page = hasMore ? rows.slice(0, query.limit) : rows;
    const last = page[page.length - 1];
    const disclosure: ContentDisclosure = masked ? 'masked' : 'raw';
    return {
      meta: {
        policy,
        channel: query.channel ?? null,
        from: range.from === null ? null : new Date(range.from).toISOString(),
        to: new Date(position.horizon).toISOString(),
        generated_at: new Date().toISOString(),
      },
      messages: page.map((row) => toExported(row, disclosure)),
      pagination: {
        next_cursor: hasMore
          ? this.cursors.encode(scope, {
              horizon: position.horizon,
              createdAt: last.created_at.getTime(),
              id: last.id,
            })
          : null,
        has_more: hasMore,
        limit: query.limit,
      },
    };
  }
}

function toExported(row: ExportRow, disclosure: ContentDisclosure): ExportedMessageDto {
  return {
    message_uuid: row.id,
    conversation_uuid: row.conversation_id,
    session_uuid: row.session_id,
    contact_uuid: row.contact_id,
    agent_uuid: row.agent_id,
    channel: row.channel,
    channel_label: CHANNEL_LABELS[row.channel] ?? row.channel,
    direction: row.direction,
    sender: row.sender,
    message_type: row.message_type,
    content: row.content,
    content_disclosure: disclosure,
    created_at: row.created_at.toISOString(),
  };
}
