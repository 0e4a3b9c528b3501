import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { Queue } from 'bull';
import Redis from 'ioredis';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { REDIS } from '@/common/redis/redis.module';
import type { Call } from '@/modules/calls/call.entity';
import { CallLifecycle } from '@/modules/calls/call-lifecycle.service';
import { OutboundClock } from './outbound-clock';
import { TaskSettlement } from './task-settlement';

type SlotJob = JobPayloads['outbound-slots']['campaign-slot'];

const GENERATION_TTL_MS = 24 * 3600 * 1000;
const generationKey = (campaignId: string) => `outbound:slot-generation:${campaignId}`;

/**
 * A campaign call that ends frees its slot at once: right after the end commits, in the process that ended it, the
 * task is settled and a `campaign-slot` job claims and places the campaign's next calls (the dispatcher's pass,
 * every 2 s and on commits, settles and claims whatever this missed).
 *
 * The jobs of a campaign collapse while one is waiting: its id carries the campaign's generation, which the
 * processor moves on before it claims. A wake that finds the job still waiting adds nothing (that job's claim
 * starts after this settlement committed, so it sees the free slot); one that comes after the claim started finds
 * a new generation, so a new job.
 */
@Injectable()
export class CampaignSlotWake implements OnModuleInit {
  constructor(
    private readonly lifecycle: CallLifecycle,
    private readonly settlement: TaskSettlement,
    private readonly clock: OutboundClock,
    @Inject(REDIS) private readonly redis: Redis,
    @InjectQueue(QUEUES.outboundSlots) private readonly queue: Queue<SlotJob>,
  ) {}

  onModuleInit(): void {
    this.lifecycle.onEnded = (call) => this.callEnded(call);
  }

  /** The task of an ended call is settled, then its campaign woken. */
  async callEnded(
    call: Pick<
      Call,
      'workspaceId' | 'id' | 'taskId' | 'campaignId' | 'status' | 'answeredAt' | 'endedAt' | 'createdAt'
    >,
  ): Promise<void> {
    if (!call.taskId) return;
    await this.settlement.settleCall(
      { workspace_id: call.workspaceId, id: call.taskId },
      await this.clock.now(),
      call.createdAt && {
        id: call.id,
        status: call.status,
        answered_at: call.answeredAt,
        ended_at: call.endedAt,
        created_at: call.createdAt,
      },
    );
    if (call.campaignId) await this.wake(call.workspaceId, call.campaignId);
  }

  /** Queues a claim for the campaign unless one is waiting already. */
  async wake(workspaceId: string, campaignId: string): Promise<void> {
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
