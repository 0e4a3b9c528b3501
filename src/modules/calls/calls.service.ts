import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import type { Call } from './call.entity';
import { CallsRepository } from './calls.repository';
import type { ListCallsQuery } from './dto/requests';
import { CallResponse } from './dto/responses';

/** Reading calls: one by its uuid (the conversation's) and the filtered list. */
@Injectable()
export class CallsService {
  constructor(private readonly calls: CallsRepository) {}

  async get(workspaceId: string, id: string): Promise<CallResponse> {
    const row = await this.calls.view(workspaceId, id);
    if (!row) throw AppException.notFound('Call');
    return CallResponse.of(row);
  }

  /** The call entity, or 404 `Call not found`. */
  async entity(workspaceId: string, id: string): Promise<Call> {
    const call = await this.calls.findById(workspaceId, id);
    if (!call) throw AppException.notFound('Call');
    return call;
  }

  async list(workspaceId: string, q: ListCallsQuery): Promise<Page<CallResponse>> {
    const { skip, take } = skipTake(q);
    const { rows, total } = await this.calls.list(
      workspaceId,
      {
        statuses: q.status,
        direction: q.direction,
        channel: q.communication,
        agentId: q.agent_uuid,
        contactId: q.contact_uuid,
        campaignId: q.campaign_uuid,
        taskId: q.task_uuid,
        phoneNumberId: q.phone_number_uuid,
        phone: q.phone,
        isSimulation: q.is_simulation === undefined ? undefined : q.is_simulation === 'true',
        from: q.from ? new Date(q.from) : undefined,
        to: q.to ? new Date(q.to) : undefined,
      },
      skip,
      take,
    );
    return pageOf(
      rows.map((r) => CallResponse.of(r)),
      total,
      q,
    );
  }
}
