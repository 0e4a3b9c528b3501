import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import type { Transaction } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { Call } from '../call.entity';
import { CallsRepository } from '../calls.repository';
import type { ListCallsQuery } from '../dto/requests';
import { CallResponse } from '../dto/responses';

/**
 * Reading calls: one by its uuid (the conversation's) and the filtered list; and the call row as other modules reach
 * it (the provider hooks and the web calls' pages find a call by its id alone, and lock it or name its provider
 * call), never through the repository.
 */
@Injectable()
export class CallsService {
  constructor(private readonly calls: CallsRepository) {}

  /** The workspace of the call with this id, across workspaces (hook paths and web-call pages name a call alone). */
  workspaceOf(callId: string): Promise<WorkspaceId | null> {
    return this.calls.workspaceOfCall(callId);
  }

  /** The call row, or null when it is not in the workspace. */
  find(workspaceId: WorkspaceId, id: string): Promise<Call | null> {
    return this.calls.findById(workspaceId, id);
  }

  /** The call row locked for the rest of `tx` (concurrent moves of one call have one winner); null when absent. */
  lock(workspaceId: WorkspaceId, id: string, tx: Transaction): Promise<Call | null> {
    return this.calls.lock(workspaceId, id, tx);
  }

  /**
   * The call is owned by process `ownerId` from now on (it holds the call's media), unless its owner is no longer
   * `expected`; answers whether it took it.
   */
  claimOwner(
    workspaceId: WorkspaceId,
    id: string,
    expected: string | null,
    ownerId: string,
  ): Promise<boolean> {
    return this.calls.claimOwner(workspaceId, id, expected, ownerId);
  }

  /** Records the provider's id of the call (an inbound call's, once the provider names it). */
  setProviderCallId(workspaceId: WorkspaceId, id: string, providerCallId: string): Promise<void> {
    return this.calls.setProviderCallId(workspaceId, id, providerCallId);
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<CallResponse> {
    const row = await this.calls.view(workspaceId, id);
    if (!row) throw AppException.notFound('Call');
    return CallResponse.of(row);
  }

  /** The call entity, or 404 `Call not found`. */
  async entity(workspaceId: WorkspaceId, id: string): Promise<Call> {
    const call = await this.calls.findById(workspaceId, id);
    if (!call) throw AppException.notFound('Call');
    return call;
  }

  async list(workspaceId: WorkspaceId, q: ListCallsQuery): Promise<Page<CallResponse>> {
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
