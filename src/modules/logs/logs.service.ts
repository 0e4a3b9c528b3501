import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { ActionLogType } from './action-log.entity';
import { ActionLogRow, ActionLogsRepository } from './action-logs.repository';
import type {
  ActionLogResponse,
  ListActionLogsQuery,
  ListRequestLogsQuery,
  RequestLogResponse,
} from './dto/logs.dto';
import { RequestLogsRepository, RequestLogView } from './request-logs.repository';

const iso = (d: Date) => new Date(d).toISOString();

/** `2xx` → 200..299, `404` → 404..404. */
export function statusRange(value: string): { from: number; to: number } {
  const n = Number(value[0]) * 100;
  return value.endsWith('xx') ? { from: n, to: n + 99 } : { from: Number(value), to: Number(value) };
}

/** Reading the request and action logs of a workspace. */
@Injectable()
export class LogsService {
  constructor(
    private readonly requests: RequestLogsRepository,
    private readonly actions: ActionLogsRepository,
  ) {}

  async listRequests(workspaceId: WorkspaceId, q: ListRequestLogsQuery): Promise<Page<RequestLogResponse>> {
    const [rows, total] = await this.requests.list(workspaceId, {
      method: q.method,
      pathPrefix: q.path,
      status: q.status ? statusRange(q.status) : undefined,
      tokenId: q.token_uuid,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
      ...skipTake(q),
    });
    return pageOf(rows.map(requestView), total, q);
  }

  async readRequest(workspaceId: WorkspaceId, id: string): Promise<RequestLogResponse> {
    const row = await this.requests.view(workspaceId, id);
    if (!row) throw AppException.notFound('Request log entry');
    return requestView(row);
  }

  async listActions(workspaceId: WorkspaceId, q: ListActionLogsQuery): Promise<Page<ActionLogResponse>> {
    const [rows, total] = await this.actions.list(workspaceId, {
      type: q.type,
      status: q.status,
      agentId: q.agent_uuid,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
      ...skipTake(q),
    });
    return pageOf(rows.map(actionView), total, q);
  }

  async readAction(workspaceId: WorkspaceId, type: ActionLogType, id: string): Promise<ActionLogResponse> {
    const row = await this.actions.view(workspaceId, type, id);
    if (!row) throw AppException.notFound('Action log entry');
    return actionView(row);
  }
}

function requestView(r: RequestLogView): RequestLogResponse {
  return {
    uuid: r.id,
    request_id: r.requestId,
    method: r.method,
    path: r.path,
    query: r.query,
    status: r.status,
    duration_ms: r.durationMs,
    ip: r.ip,
    user_agent: r.userAgent,
    token: r.tokenId ? { uuid: r.tokenId, name: r.tokenName, last_four: r.tokenLastFour } : null,
    created_at: iso(r.createdAt),
  };
}

function actionView(r: ActionLogRow): ActionLogResponse {
  return {
    uuid: r.id,
    type: r.type,
    name: r.name,
    status: r.status,
    channel: r.channel,
    duration_ms: r.duration_ms,
    agent: r.agent_id ? { uuid: r.agent_id, name: r.agent_name } : null,
    contact: r.contact_id ? { uuid: r.contact_id, name: r.contact_name } : null,
    request: r.request ?? null,
    response: r.response ?? null,
    error: r.error,
    created_at: iso(r.created_at),
  };
}
