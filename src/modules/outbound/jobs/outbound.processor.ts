import { Process, Processor } from '@nestjs/bull';
import { QUEUES } from '@/common/queue/queues';
import { Dispatcher, TickReport } from '../dispatcher.service';

/** The outbound queue: each `dispatch` job is one pass of the dispatcher. */
@Processor(QUEUES.outbound)
export class OutboundProcessor {
  constructor(private readonly dispatcher: Dispatcher) {}

  @Process({ name: 'dispatch', concurrency: 1 })
  dispatch(): Promise<TickReport> {
    return this.dispatcher.tick();
  }
}
