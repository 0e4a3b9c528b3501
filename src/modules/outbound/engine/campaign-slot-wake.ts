import { KeyedRounds } from '@/common/concurrency/keyed-rounds';
import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import Redis from 'ioredis';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { REDIS } from '@/common/redis/redis.module';
import type { Call } from '@/modules/calls/call.entity';
import type { CallEndListener } from '@/modules/calls/call-end.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { EntityManager } from 'typeorm';
import { Dispatcher } from './dispatcher.service';
import { OutboundClock } from './outbound-clock';
import { TaskSettlement } from './task-settlement';

type SlotJob = JobPayloads['outbound-slots']['campaign-slot'];

/** The call as its end committed, for the settlement (not read again). */
const endedOf = (call: Call) =>
  call.createdAt && {
    id: call.id,
    status: call.status,
    answered_at: call.answeredAt,
    ended_at: call.endedAt,
    created_at: call.createdAt,
    answered_by: call.answeredBy,
    retry_on_voicemail: !!call.voicemail?.retry_on_voicemail,
  };

const GENERATION_TTL_MS = 24 * 3600 * 1000;
const generationKey = (campaignId: string) => `outbound:slot-generation:${campaignId}`;

/**
 * A campaign call that ends frees its slot at once: right after the end commits, in the process that ended it, the
 * task is settled and the campaign's next calls are claimed and placed there (the dispatcher's pass, every 2 s and
 * on commits, settles and claims whatever this missed, a process that died meanwhile included).
 *
 * In a process, one claim per campaign runs at a time; ends that come while it runs ask it for one more round, which
 * starts as soon as its claim has committed (its calls are placed meanwhile), so a burst of ends costs a few claims,
 * each taking every slot freed before it. A claim that fails is handed to a `campaign-slot` job. Jobs of a campaign
 * collapse while one is waiting: its id carries the campaign's generation, which the processor moves on before it
 * claims.
 *
 * It listens to the ends of calls of a task through the calls module's CALL_END_LISTENERS port (bound in
 * PortBindingsModule).
 */
@Injectable()
export class CampaignSlotWake implements CallEndListener {
  private readonly logger = new Logger(CampaignSlotWake.name);
  /** One claim per campaign at a time in this process; ends meanwhile ask for one more round. */
  private readonly claims = new KeyedRounds();
  constructor(
    private readonly settlement: TaskSettlement,
    private readonly dispatcher: Dispatcher,
    private readonly clock: OutboundClock,
    @Inject(REDIS) private readonly redis: Redis,
    @InjectQueue(QUEUES.outboundSlots) private readonly queue: Queue<SlotJob>,
  ) {}

  /** The calls of a task (a campaign's, or a task placed on its own). */
  follows(call: Call): boolean {
    return !!call.taskId;
  }

  /** In the call's ending transaction: its task settled with it (one transaction less before the next claim). */
  async withinEnd(m: EntityManager, call: Call): Promise<boolean> {
    if (!call.taskId) return false;
    return this.settlement.settleCallIn(
      m,
      { workspace_id: call.workspaceId, id: call.taskId },
      await this.clock.now(),
      endedOf(call),
    );
  }

  /** The task of an ended call is settled (unless its end did), then its campaign's free slots claimed. */
  async ended(call: Call, followed: { withEnd: boolean }): Promise<void> {
    if (!call.taskId) return;
    if (!followed.withEnd)
      await this.settlement.settleCall(
        { workspace_id: call.workspaceId, id: call.taskId },
        await this.clock.now(),
        endedOf(call),
      );
    if (call.campaignId) this.fill(call.workspaceId, call.campaignId);
  }

  /** Claims (and places) the campaign's free slots here, one claim at a time per campaign in this process. */
  private fill(workspaceId: WorkspaceId, campaignId: string): void {
    const placing: Promise<number>[] = [];
    void this.claims
      .run(campaignId, async () => {
        placing.push((await this.dispatcher.claimForSlots(workspaceId, campaignId)).placed);
      })
      .catch(async (err: Error) => {
        this.logger.warn({ err: err.message, campaignId }, 'campaign slot claim failed; queued');
        await this.wake(workspaceId, campaignId).catch(() => undefined);
      })
      .then(() => Promise.allSettled(placing));
  }

  /** Queues a claim for the campaign unless one is waiting already. */
  async wake(workspaceId: WorkspaceId, campaignId: string): Promise<void> {
    const generation = (await this.redis.get(generationKey(campaignId))) ?? '0';
    await this.queue.add(
      'campaign-slot',
      { workspaceId, campaignId },
      { jobId: `slot:${campaignId}:${generation}`, attempts: 1, removeOnComplete: true, removeOnFail: true },
    );
  }

  /** The processor took the campaign's job: wakes from now on queue a new one. */
  async taken(campaignId: string): Promise<void> {
    await this.redis
      .multi()
      .incr(generationKey(campaignId))
      .pexpire(generationKey(campaignId), GENERATION_TTL_MS)
      .exec();
  }
}
