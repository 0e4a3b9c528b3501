import { VersionedCache } from '@/common/persistence/versioned-cache';
import { resumeTrace } from '@/common/telemetry/trace-context';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { SecretBox } from '@/common/crypto/secret-box';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AGENT_WEBHOOK_TARGETS, AgentWebhookTargets } from './agent-webhook-targets.port';
import { DeliveriesRepository, DeliveryRow, NewDelivery } from './deliveries.repository';
import { DeliveryQueue } from './delivery-queue';
import { DeliveryThrottle } from './delivery-throttle';
import { OUTBOX_CONSUMERS, OutboxConsumer } from './outbox-consumers.port';
import { OutboxRepository } from './outbox.repository';
import { WebhookSender } from './webhook-sender';
import { WebhooksService } from './webhooks.service';

export { DELIVERY_TIMEOUT_MS } from './webhook-sender';
/** A worker's hold on a delivery; past it (a crashed worker) the sweep hands the delivery to another. */
const LEASE_SECONDS = 30;
const DISPATCH_BATCH = 200;

/**
 * Delivery of outbox events: fan-out into durable delivery rows, one attempt at a time under a lease, retries,
 * and the sweep that re-queues whatever is due and not held (at-least-once). An attempt itself is WebhookSender's;
 * its outcome DeliveryOutcomes'. The statements that walk across
 * workspaces (outbox claims, due deliveries) are the repositories' named sweeps; each row still carries its workspace.
 */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger(DeliveryService.name);
  private dispatching: Promise<void> | null = null;
  /** Each event's subscriptions by workspace, type and agent, kept under the workspace's configuration version. */
  private readonly routes = new VersionedCache<
    Array<{ kind: 'workspace' | 'agent'; id: string; url: string }>
  >();
  private dispatchAgain = false;

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly outbox: OutboxRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly queue: DeliveryQueue,
    private readonly webhooks: WebhooksService,
    @Inject(AGENT_WEBHOOK_TARGETS) private readonly agentWebhooks: AgentWebhookTargets,
    private readonly throttle: DeliveryThrottle,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    @Inject(OUTBOX_CONSUMERS) private readonly consumers: readonly OutboxConsumer[],
  ) {}

  /**
   * In the transaction of the event: a delivery of that event to an address a single request named (unsigned,
   * with `Authorization: Bearer <token>` when given; the token is sealed on the delivery). Same retries as any
   * delivery; call `enqueue` with the answer after commit.
   */
  async addRequestDelivery(
    tx: Transaction,
    workspaceId: WorkspaceId,
    event: { id: string; type: string },
    target: { subjectId: string; url: string; bearerToken?: string | null },
  ): Promise<DeliveryRow | undefined> {
    const [row] = await this.deliveries.createPending(tx, [
      {
        workspaceId,
        eventId: event.id,
        eventType: event.type,
        kind: 'request',
        webhookId: target.subjectId,
        url: target.url,
        authCiphertext: target.bearerToken ? this.secrets.encrypt(target.bearerToken) : null,
      },
    ]);
    return row;
  }

  /** Queues a delivery's attempt for `dueAt` (after the commit that wrote it). */
  enqueue(workspaceId: WorkspaceId, deliveryId: string, dueAt: Date): Promise<void> {
    return this.queue.add(workspaceId, deliveryId, dueAt);
  }

  /** Fans pending outbox events out; calls made while one runs are folded into one more pass. */
  dispatch(): Promise<void> {
    if (this.dispatching) {
      this.dispatchAgain = true;
      return this.dispatching;
    }
    this.dispatching = (async () => {
      try {
        do {
          this.dispatchAgain = false;
          while ((await this.dispatchBatch()) === DISPATCH_BATCH);
        } while (this.dispatchAgain);
      } finally {
        this.dispatching = null;
      }
    })();
    return this.dispatching;
  }

  /**
   * Claims a batch of undispatched events and writes one delivery per matching subscription, in one transaction
   * (SKIP LOCKED lets several workers claim side by side), then queues the first attempts after commit.
   */
  private async dispatchBatch(): Promise<number> {
    const created: DeliveryRow[] = [];
    const after: Array<() => Promise<void>> = [];
    const traces = new Map<string, string | null | undefined>();
    const claimed = await this.unitOfWork.run(async (tx) => {
      after.length = 0;
      const events = await this.outbox.claimUndispatched(tx, DISPATCH_BATCH);
      const fresh: NewDelivery[] = [];
      for (const e of events) {
        const key = `${e.workspace_id}|${e.type}|${e.agent_id ?? ''}`;
        // Kept while the workspace's configuration version (read with the claim) holds: webhook changes move it.
        const subs = await this.routes.get(key, e.config_version, async () => {
          const ws = await this.webhooks.subscribed(e.workspace_id, e.type);
          const agent = e.agent_id
            ? await this.agentWebhooks.activeWebhooks(e.workspace_id, e.agent_id, e.type)
            : [];
          return [
            ...ws.map((w) => ({ kind: 'workspace' as const, id: w.id, url: w.url })),
            ...agent.map((w) => ({ kind: 'agent' as const, id: w.id, url: w.url })),
          ];
        });
        for (const s of subs)
          fresh.push({
            workspaceId: e.workspace_id,
            eventId: e.id,
            eventType: e.type,
            ...s,
            webhookId: s.id,
          });
      }
      for (const e of events) traces.set(e.id, e.trace_parent);
      created.push(...(await this.deliveries.createPending(tx, fresh)));
      if (events.length) for (const c of this.consumers) after.push(await c.claimed(tx, events));
      return events.length;
    });
    // Each first attempt continues the trace its event was written in.
    const first = (d: DeliveryRow) => this.queue.add(d.workspace_id, d.id, new Date(d.next_attempt_at));
    await Promise.all(created.map((d) => resumeTrace(traces.get(d.event_id), () => first(d))));
    await Promise.all(after.map((f) => f()));
    return claimed;
  }

  /** Re-queues deliveries that are due and held by nobody (a lost job, a crashed worker), and missed events. */
  async sweep(): Promise<number> {
    await this.dispatch();
    const rows = await this.deliveries.dueUnheld(1000);
    await Promise.all(rows.map((d) => this.queue.add(d.workspace_id, d.id, new Date(d.next_attempt_at))));
    return rows.length;
  }

  /** One attempt of a delivery, if it is due and nobody holds it. */
  async attempt(workspaceId: WorkspaceId, deliveryId: string): Promise<void> {
    const d = await this.deliveries.lease(workspaceId, deliveryId, LEASE_SECONDS);
    if (!d) return;
    const wait = await this.throttle.acquireSoon(workspaceId, deliveryId);
    if (wait > 0) {
      // Over the workspace's rate or in-flight cap: wait in the queue, never dropped. No slot is booked ahead: a
      // booked start that a busy worker reaches late would be capacity lost for good.
      const due = new Date(Date.now() + wait + Math.floor(Math.random() * 20));
      await this.deliveries.postpone(workspaceId, deliveryId, due);
      await this.queue.add(workspaceId, deliveryId, due);
      return;
    }
    try {
      await this.sender.send(d);
    } finally {
      await this.throttle.release(workspaceId, deliveryId);
    }
  }
}
