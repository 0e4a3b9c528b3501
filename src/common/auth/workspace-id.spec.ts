import type { Call } from '@/modules/calls/call.entity';
import type { CallsService } from '@/modules/calls/api/calls.service';
import type { Conversation } from '@/modules/conversations/conversation.entity';
import type { TenantContext } from './request-context';
import { type WorkspaceId, workspaceIdOf } from './workspace-id';

/**
 * The brand is a compile-time guarantee: `npm run typecheck` checks this file, and each `@ts-expect-error` below
 * fails it (as an unused directive) as soon as a plain string is accepted where a workspace id is expected.
 */
export function typeChecks(
  calls: CallsService,
  call: Call,
  conversation: Conversation,
  tenant: TenantContext,
  raw: string,
): void {
  // What knows the workspace types it: the request's tenant, an owned row's column.
  void calls.find(tenant.id, call.id);
  void calls.find(call.workspaceId, call.id);
  // Another id, or any string, is not a workspace id.
  // @ts-expect-error a call's id is not a workspace id
  void calls.find(call.id, call.id);
  // @ts-expect-error neither is the agent that answered it
  void calls.find(call.agentId!, call.id);
  // @ts-expect-error nor a conversation's id
  void calls.find(conversation.id, call.id);
  // @ts-expect-error nor a plain string
  void calls.find(raw, call.id);
  // @ts-expect-error arguments in the wrong order
  void calls.find(call.id, call.workspaceId);
  // @ts-expect-error a workspace id is not made by an assignment
  const made: WorkspaceId = 'ws-1';
  // A workspace id is still a string wherever one is read.
  const read: string = call.workspaceId;
  void [made, read];
}

describe('workspaceIdOf', () => {
  it('is the string itself at run time', () => {
    const raw = '019a9a40-0000-7000-8000-000000000001';
    expect(workspaceIdOf(raw)).toBe(raw);
    expect(typeof typeChecks).toBe('function');
  });
});
