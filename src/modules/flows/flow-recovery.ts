import { Injectable, Logger } from '@nestjs/common';
import { FlowExecutionsRepository, StalledExecution } from './executions.repository';
import { FlowExecutionsService } from './flow-executions.service';
import { FlowOwner } from './flow-owner';
import { RESUME_GRACE_MS } from './flow-limits';
import { FlowVersionsRepository } from './flows.repository';
import { interrupted } from './steps/step-records';

/** At most this many executions handed back per sweep (the next sweep takes the rest). */
const BATCH = 500;

/**
 * Running executions nobody is running any more go back to be resumed (run by the `wake-queued` sweep). One whose
 * owner is dead (its heartbeat gone) or whose lease ran out while held resumes at the step it was on, that try
 * counted as an attempt; one paused for a retry whose lease ran out (its resume job lost) resumes as it was. Each
 * hand-back is a conditional update on the row as read, then a resume job; the job takes the execution with another
 * conditional update, so it runs in one place at a time and keeps its slot throughout.
 */
@Injectable()
export class FlowRecovery {
  private readonly logger = new Logger(FlowRecovery.name);

  constructor(
    private readonly executions: FlowExecutionsRepository,
    private readonly versions: FlowVersionsRepository,
    private readonly service: FlowExecutionsService,
    private readonly owner: FlowOwner,
  ) {}

  /** Hands back what it finds; answers how many executions were handed back. */
  async reclaim(): Promise<number> {
    const dead: string[] = [];
    for (const owner of await this.executions.runningOwners())
      if (await this.owner.isDead(owner)) dead.push(owner);
    let n = 0;
    for (const row of await this.executions.stalled(dead, BATCH)) if (await this.handBack(row)) n++;
    if (n) this.logger.warn({ handedBack: n, deadOwners: dead.length }, 'flow executions handed back');
    return n;
  }

  private async handBack(row: StalledExecution): Promise<boolean> {
    let at = { resumeAt: row.resume_at, records: row.steps };
    // Held by someone (not paused): it was on a step. A version gone leaves the records; the resume then fails it.
    if (row.claimed_by !== null) {
      const version = await this.versions.get(row.workspace_id, row.flow_id, row.version);
      if (version) at = interrupted(version.steps, row.steps, row.resume_at, row.trigger.data);
    }
    if (!(await this.executions.handBack(row, at.resumeAt, at.records, RESUME_GRACE_MS))) return false;
    await this.service.enqueue(row.workspace_id, row.id, { resume: true });
    return true;
  }
}
