import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { CampaignSlotWake } from '../campaign-slot-wake';
import { Dispatcher, TickReport } from '../dispatcher.service';

/** Slot jobs run side by side: those of one campaign wait for each other on its row lock, others' do not. */
const SLOT_CONCURRENCY = 6;

/** The outbound queue: each `dispatch` job is one pass of the dispatcher. */
@Processor(QUEUES.outbound)
export class OutboundProcessor {
  constructor(private readonly dispatcher: Dispatcher) {}

  @Process({ name: 'dispatch', concurrency: 1 })
  dispatch(): Promise<TickReport> {
    return this.dispatcher.tick();
  }
}

/** Its own queue, so a freed slot is claimed at once rather than behind a pass placing a batch of calls. */
@Processor(QUEUES.outboundSlots)
export class OutboundSlotsProcessor {
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly wake: CampaignSlotWake,
  ) {}

  @Process({ name: 'campaign-slot', concurrency: SLOT_CONCURRENCY })
  async campaignSlot(job: Job<JobPayloads['outbound-slots']['campaign-slot']>) {
    await this.wake.taken(job.data.campaignId);
    return this.dispatcher.fillCampaign(job.data.workspaceId, job.data.campaignId);
  }
}
