import { VersionedCache } from '@/common/persistence/versioned-cache';
import { Injectable } from '@nestjs/common';
import type { Transaction } from '@/common/persistence/unit-of-work';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import type { OutboxConsumer } from '@/modules/events/outbox-consumers.port';
import type { ClaimedEvent } from '@/modules/events/outbox.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { NewExecution } from '../executions.repository';
import { FlowExecutionsService } from '../flow-executions.service';
import { FlowsRepository, LiveFlow } from '../flows.repository';
import { matches, triggerKeysFor } from './trigger-match';

/** Events caused by a chain this deep (executions that caused executions) trigger nothing: the loop guard. */
export const MAX_CHAIN_DEPTH = 3;

/**
 * The outbox's second consumer: in the transaction that claims a batch for webhook delivery, it matches the
 * events to the live triggers of deployed flows and writes queued executions (one per flow and event, so a replay
 * adds none); their runs are queued after the commit.
 */
@Injectable()
export class FlowDispatcher implements OutboxConsumer {
  readonly name = 'flows';

  constructor(
    private readonly flows: FlowsRepository,
    private readonly executions: FlowExecutionsService,
    private readonly conversations: ConversationsService,
  ) {}

  /** Deployed flows by workspace and trigger keys, kept while the workspace's configuration version holds. */
  private readonly live = new VersionedCache<LiveFlow[]>();

  async claimed(tx: Transaction, events: readonly ClaimedEvent[]): Promise<() => Promise<void>> {
    const rows = new Map<WorkspaceId, NewExecution[]>();
    for (const e of events) {
      if ((e.chain?.length ?? 0) >= MAX_CHAIN_DEPTH) continue;
      const keys = triggerKeysFor(e);
      if (!keys.length) continue;
      for (const flow of await this.liveFlows(e, keys))
        if (await matches(flow.trigger_key, flow.trigger_config ?? {}, e, (id) => this.channelOf(e, id)))
          rows.set(e.workspace_id, [...(rows.get(e.workspace_id) ?? []), this.execution(flow, e)]);
    }
    const made: Array<{ ws: WorkspaceId; id: string }> = [];
    for (const [ws, list] of rows) {
      // One run job per workspace: it starts as many as have free slots; the rest wait queued and start as others end.
      const ids = await this.executions.create(tx, ws, list);
      if (ids.length) made.push({ ws, id: ids[0] });
    }
    return async () => {
      await Promise.all(made.map((m) => this.executions.enqueue(m.ws, m.id)));
    };
  }

  private liveFlows(e: ClaimedEvent, keys: string[]): Promise<LiveFlow[]> {
    const ws = e.workspace_id;
    return this.live.get(`${ws}|${keys.join(',')}`, e.config_version, () => this.flows.live(ws, keys));
  }

  private execution(flow: LiveFlow, e: ClaimedEvent): NewExecution {
    return {
      flowId: flow.id,
      version: flow.live_version,
      trigger: { key: flow.trigger_key, event_uuid: e.id, data: e.data },
      triggerRef: `event:${e.id}`,
      chain: e.chain ?? [],
    };
  }

  private async channelOf(e: ClaimedEvent, conversationId: string): Promise<string | null> {
    const c = await this.conversations.get(e.workspace_id, conversationId).catch(() => null);
    return c?.channel ?? null;
  }
}
