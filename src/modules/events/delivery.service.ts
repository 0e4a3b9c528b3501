import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { Metrics } from '@/common/metrics/metrics';
import type { SafeResponse } from '@/common/net/address-guard';
import { outboundCategory, outboundRequest } from '@/common/net/outbound-http';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AgentWebhooksService } from '@/modules/agents/collections/agent-webhooks.service';
import { DeliveriesRepository, DeliveryRow, NewDelivery } from './deliveries.repository';
import { DeliveryThrottle } from './delivery-throttle';
import { OutboxConsumers } from './outbox-consumers';
import { OutboxRepository } from './outbox.repository';
import { parseRetryAfter, RetryPolicy } from './retry-policy';
import { signatureHeader } from './signing';
import { SendableSubscription, WebhooksService } from './webhooks.service';

/** Deadline of one attempt, connect to last byte. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A worker's hold on a delivery; past it (a crashed worker) the sweep hands the delivery to another. */
const LEASE_SECONDS = 30;
const EXCERPT_CHARS = 1000;
const DISPATCH_BATCH = 200;

type DeliverJob = JobPayloads['webhooks']['deliver'];

/**
 * Delivery of outbox events: fan-out into durable delivery rows, one attempt at a time under a lease, retries,
 * and the sweep that re-queues whatever is due and not held (at-least-once). The statements that walk across
 * workspaces (outbox claims, due deliveries) are the repositories' named sweeps; each row still carries its workspace.
 */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger(DeliveryService.name);
  private dispatching: Promise<void> | null = null;
  private dispatchAgain = false;

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly outbox: OutboxRepository,
    private readonly deliveries: DeliveriesRepository,
    @InjectQueue(QUEUES.webhooks) private readonly queue: Queue<DeliverJob>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly webhooks: WebhooksService,
    private readonly agentWebhooks: AgentWebhooksService,
    private readonly throttle: DeliveryThrottle,
    private readonly policy: RetryPolicy,
    private readonly metrics: Metrics,
    private readonly consumers: OutboxConsumers,
  ) {}

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
    const claimed = await this.unitOfWork.run(async (tx) => {
      after.length = 0;
      const events = await this.outbox.claimUndispatched(tx, DISPATCH_BATCH);
      const cache = new Map<string, Array<{ kind: 'workspace' | 'agent'; id: string; url: string }>>();
      const fresh: NewDelivery[] = [];
      for (const e of events) {
        const key = `${e.workspace_id}|${e.type}|${e.agent_id ?? ''}`;
        let subs = cache.get(key);
        if (!subs) {
          const ws = await this.webhooks.subscribed(e.workspace_id, e.type);
          const agent = e.agent_id
            ? await this.agentWebhooks.activeWebhooks(e.workspace_id, e.agent_id, e.type)
            : [];
          subs = [
            ...ws.map((w) => ({ kind: 'workspace' as const, id: w.id, url: w.url })),
            ...agent.map((w) => ({ kind: 'agent' as const, id: w.id, url: w.url })),
          ];
          cache.set(key, subs);
        }
        for (const s of subs)
          fresh.push({
            workspaceId: e.workspace_id,
            eventId: e.id,
            eventType: e.type,
            ...s,
            webhookId: s.id,
          });
      }
      created.push(...(await this.deliveries.createPending(tx, fresh)));
      if (events.length) for (const c of this.consumers.all()) after.push(await c.claimed(tx, events));
      return events.length;
    });
    await Promise.all(created.map((d) => this.enqueue(d.workspace_id, d.id, new Date(d.next_attempt_at))));
    await Promise.all(after.map((f) => f()));
    return claimed;
  }

  /** Queues an attempt for when it is due; the job id is the delivery and its due time, so the sweep never doubles it. */
  async enqueue(workspaceId: string, deliveryId: string, dueAt: Date): Promise<void> {
    await this.queue.add(
      'deliver',
      { workspaceId, deliveryId },
      {
        jobId: `${deliveryId}:${dueAt.getTime()}`,
        delay: Math.max(0, dueAt.getTime() - Date.now()),
        attempts: 1,
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }

  /** Re-queues deliveries that are due and held by nobody (a lost job, a crashed worker), and missed events. */
  async sweep(): Promise<number> {
    await this.dispatch();
    const rows = await this.deliveries.dueUnheld(1000);
    await Promise.all(rows.map((d) => this.enqueue(d.workspace_id, d.id, new Date(d.next_attempt_at))));
    return rows.length;
  }

  /** One attempt of a delivery, if it is due and nobody holds it. */
  async attempt(workspaceId: string, deliveryId: string): Promise<void> {
    const d = await this.deliveries.lease(workspaceId, deliveryId, LEASE_SECONDS);
    if (!d) return;
    const wait = await this.throttle.acquireSoon(workspaceId, deliveryId);
    if (wait > 0) {
      // Over the workspace's rate or in-flight cap: wait in the queue, never dropped. No slot is booked ahead: a
      // booked start that a busy worker reaches late would be capacity lost for good.
      const due = new Date(Date.now() + wait + Math.floor(Math.random() * 20));
      await this.deliveries.postpone(workspaceId, deliveryId, due);
      await this.enqueue(workspaceId, deliveryId, due);
      return;
    }
    try {
      await this.send(d);
    } finally {
      await this.throttle.release(workspaceId, deliveryId);
    }
  }

  private async send(d: DeliveryRow): Promise<void> {
    const event = await this.outbox.toSend(d.workspace_id, d.event_id);
    const sub: SendableSubscription | null =
      d.webhook_kind === 'workspace'
        ? await this.webhooks.sendable(d.workspace_id, d.webhook_id)
        : await this.agentWebhooks.deliverableWebhook(d.workspace_id, d.webhook_id);
    const attemptNo = d.attempt_count + 1;
    if (!event || !sub || !sub.isActive) {
      const why = !event
        ? 'the event no longer exists'
        : !sub
          ? 'the webhook was deleted'
          : 'the webhook is inactive';
      const r = { ok: false, status: null, durationMs: 0, excerpt: null, error: why };
      await this.record(d, attemptNo, r, null, sub?.url, true);
      return;
    }
    const body = JSON.stringify({
      type: event.type,
      timestamp: new Date(event.created_at).toISOString(),
      workspace: { uuid: d.workspace_id, slug: event.slug },
      data: event.data,
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      // Sized, not chunked: some receivers read a chunked body as empty.
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'agent-platform-webhooks/1.0',
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
    };
    if (sub.secrets.length)
      headers['webhook-signature'] = signatureHeader(sub.secrets, event.id, timestamp, body);
    const started = performance.now();
    let res: SafeResponse | null = null;
    let error: string | null = null;
    try {
      res = await outboundRequest(
        sub.url,
        { allowPrivate: this.config.network.allowPrivateTargets },
        { method: 'POST', headers, body, timeoutMs: DELIVERY_TIMEOUT_MS, maxBytes: 4096 },
      );
    } catch (err) {
      error = outboundCategory(err);
    }
    const durationMs = Math.round(performance.now() - started);
    const status = res?.status ?? null;
    const ok = status !== null && status >= 200 && status < 300;
    if (res && !ok)
      error =
        status! >= 300 && status! < 400
          ? `HTTP ${status}: redirect${res.location ? ` to ${res.location}` : ''} not followed`
          : `HTTP ${status}`;
    const retryAfterMs =
      status === 429 || status === 503 ? parseRetryAfter(res?.headers['retry-after']) : null;
    const excerpt = res ? res.body.toString('utf8').slice(0, EXCERPT_CHARS) : null;
    // 410 Gone ends the delivery and turns the subscription off.
    await this.record(
      d,
      attemptNo,
      { ok, status, durationMs, excerpt, error },
      retryAfterMs,
      sub.url,
      status === 410,
    );
    if (status === 410) {
      if (d.webhook_kind === 'workspace') await this.webhooks.disable(d.workspace_id, d.webhook_id);
      else await this.agentWebhooks.disableWebhook(d.workspace_id, d.webhook_id);
      this.logger.warn(
        { workspaceId: d.workspace_id, webhookId: d.webhook_id },
        'webhook disabled: receiver answered 410',
      );
    }
  }

  /** Writes the attempt and the delivery's new state; queues the next attempt when one is left. */
  private async record(
    d: DeliveryRow,
    attemptNo: number,
    r: {
      ok: boolean;
      status: number | null;
      durationMs: number;
      excerpt: string | null;
      error: string | null;
    },
    retryAfterMs: number | null,
    url: string | undefined,
    final: boolean = false,
  ): Promise<void> {
    const terminal = r.ok || final;
    const delay = terminal ? null : this.policy.next(attemptNo - d.round_start, retryAfterMs);
    const nextAt = delay === null ? null : new Date(Date.now() + delay);
    const status = r.ok ? 'succeeded' : nextAt ? 'pending' : 'failed';
    await this.unitOfWork.run((tx) =>
      this.deliveries.recordAttempt(tx, d.workspace_id, d.id, {
        attempt: attemptNo,
        ok: r.ok,
        statusCode: r.status,
        durationMs: r.durationMs,
        excerpt: r.excerpt,
        error: r.error,
        nextAt,
        status,
        url: url ?? null,
      }),
    );
    if (nextAt) await this.enqueue(d.workspace_id, d.id, nextAt);
    const outcome = status === 'pending' ? 'retrying' : status;
    this.metrics.webhookDeliveries.inc({ outcome });
    if (r.status !== null || r.durationMs > 0) this.metrics.webhookDuration.observe(r.durationMs / 1000);
    if (!r.ok)
      this.logger.log(
        {
          workspaceId: d.workspace_id,
          deliveryId: d.id,
          attempt: attemptNo,
          statusCode: r.status,
          reason: r.error,
          nextAttemptAt: nextAt?.toISOString() ?? null,
        },
        outcome === 'retrying'
          ? 'webhook delivery attempt failed, will be retried'
          : 'webhook delivery failed',
      );
  }
}
