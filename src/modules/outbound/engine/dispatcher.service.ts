import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Logger as Pino } from 'pino';
import { ROOT_LOGGER } from '@/common/logging/logging.module';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { CallInstance } from '@/modules/calls/runtime/call-instance';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { OutboundEvents } from '../outbound-events';
import { DIALLING } from '../outbound.entities';
import { CampaignsRepository } from '../setup/campaigns.repository';
import { TasksRepository } from '../setup/tasks.repository';
import { MovedTask, TaskRow } from '../task-row';
import { nextInWindow } from './calling-window';
import { CampaignTransitions } from './campaign-transitions';
import { DispatchRepository, PickedTask } from './dispatch.repository';
import { OutboundClock } from './outbound-clock';
import { TaskRunner, zoneOf } from './task-runner';
import { TaskSettlement } from './task-settlement';

/** A claim older than this is recovered even when its dispatcher still looks alive. */
const STUCK_CLAIM_MS = 60_000;
/** A claim younger than this is left alone: its dispatcher is probably placing it. */
const CLAIM_GRACE_MS = 3_000;
const PLACE_PARALLELISM = 8;
/** Ended attempts settled side by side: each is its own short transaction on its own task row. */
const SETTLE_PARALLELISM = 8;

/** Runs `fn` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, worker));
}

export interface TickReport {
  promoted: number;
  claimed: number;
  started: number;
  settled: number;
}

/**
 * One pass of the outbound engine (run by the `dispatch` job every 2 s and whenever an event commits): expiry,
 * outcomes of ended attempts, recovery of dead dispatchers' claims, due tasks, then claims in pool order within each
 * campaign's `max_concurrency` and the workspace's call slots, then the calls and messages.
 */
@Injectable()
export class Dispatcher {
  private readonly logger = new Logger(Dispatcher.name);
  /** The claim timings (`dispatch claim`, debug), on the process's pino logger, so LOG_LEVEL=debug shows them. */
  private readonly claimLog: Pino;

  constructor(
    private readonly dispatch: DispatchRepository,
    private readonly tasks: TasksRepository,
    private readonly campaigns: CampaignsRepository,
    private readonly transitions: CampaignTransitions,
    private readonly settlement: TaskSettlement,
    private readonly runner: TaskRunner,
    private readonly events: OutboundEvents,
    private readonly clock: OutboundClock,
    private readonly instance: CallInstance,
    private readonly unitOfWork: UnitOfWork,
    @Inject(ROOT_LOGGER) root: Pino,
  ) {
    this.claimLog = root.child({ context: Dispatcher.name });
  }

  async tick(): Promise<TickReport> {
    const now = await this.clock.now();
    const at = new Date(now);
    for (const c of await this.dispatch.campaignsPastEnd(at))
      await this.transitions.complete(c.workspace_id, c.id, 'ended');
    await this.sweep((tx) => this.dispatch.expireDue(at, tx));
    // Settling frees campaign slots, so it runs before claiming, several tasks at a time.
    const ended = await this.dispatch.endedCalls();
    await eachLimited(ended, SETTLE_PARALLELISM, (ref) => this.settlement.settleCall(ref, now));
    const settled = ended.length;
    await eachLimited(await this.dispatch.settledMessages(at), SETTLE_PARALLELISM, (ref) =>
      this.settlement.settleMessage(ref, now),
    );
    for (const ref of await this.dispatch.staleClaims(new Date(Date.now() - CLAIM_GRACE_MS))) {
      const task = await this.tasks.get(ref.workspace_id, ref.id);
      const stuck = task?.claimed_at && Date.now() - task.claimed_at.getTime() > STUCK_CLAIM_MS;
      if (stuck && task) await this.runner.release(task);
      else await this.settlement.recover(ref, now);
    }
    const promoted = await this.sweep((tx) => this.dispatch.promoteDue(at, tx));
    const claimed: TaskRow[] = [];
    for (const c of await this.dispatch.campaignsWithPending(at))
      claimed.push(...(await this.claimCampaign(c.workspace_id, c.id, now, 'skip')));
    claimed.push(
      ...(await this.sweep((tx) => this.dispatch.claimStandalone(this.instance.id, at, tx))).map(
        (m) => m.task,
      ),
    );
    const started = await this.place(claimed, now);
    for (const c of await this.dispatch.campaignsDone(at))
      await this.transitions.complete(c.workspace_id, c.id, 'done');
    return { promoted: promoted.length, claimed: claimed.length, started, settled };
  }

  /**
   * A slot of the campaign has freed (its call ended and its task is settled): claims and places what its
   * `max_concurrency` allows now, without the rest of a pass. Waits for the campaign's row lock, so a claim running
   * elsewhere (a pass, another slot job) is seen before this one counts the free slots.
   */
  async fillCampaign(
    workspaceId: WorkspaceId,
    campaignId: string,
  ): Promise<{ claimed: number; started: number }> {
    const { claimed, placed } = await this.claimForSlots(workspaceId, campaignId);
    return { claimed, started: await placed };
  }

  /** `fillCampaign` answering once the claim committed: `placed` settles when its calls are placed. */
  async claimForSlots(
    workspaceId: WorkspaceId,
    campaignId: string,
  ): Promise<{ claimed: number; placed: Promise<number> }> {
    const now = await this.clock.now();
    const claimed = await this.claimCampaign(workspaceId, campaignId, now, 'wait');
    return { claimed: claimed.length, placed: this.place(claimed, now) };
  }

  /** A cross-workspace move and its events, in one transaction. */
  private async sweep(move: (tx: Parameters<Parameters<UnitOfWork['run']>[0]>[0]) => Promise<MovedTask[]>) {
    return this.unitOfWork.run(async (tx) => {
      const moved = await move(tx);
      const byWorkspace = new Map<WorkspaceId, MovedTask[]>();
      for (const m of moved)
        byWorkspace.set(m.task.workspace_id, [...(byWorkspace.get(m.task.workspace_id) ?? []), m]);
      for (const [ws, list] of byWorkspace) await this.events.tasks(tx, ws, list);
      return moved;
    });
  }

  /**
   * Claims the campaign's due tasks under its row lock (a second dispatcher skips it): per pool in the order the
   * pools were attached, FIFO and LIFO one live task at a time, Parallel up to `max_parallel_items`, and all pools
   * together within `max_concurrency`. A task whose window has closed goes back to `scheduled` at its next opening.
   */
  private async claimCampaign(
    workspaceId: WorkspaceId,
    campaignId: string,
    now: number,
    locked: 'skip' | 'wait',
  ): Promise<TaskRow[]> {
    const marks = { began: performance.now(), open: 0, locked: 0 };
    const tasks = await this.claimLocked(workspaceId, campaignId, now, locked, marks);
    if (tasks.length) {
      const end = performance.now();
      // claimMs: the whole claim; of it, waiting for a connection (openMs) and for the campaign's lock (lockMs).
      this.claimLog.debug(
        {
          campaignId,
          claimed: tasks.length,
          claimMs: end - marks.began,
          openMs: marks.open - marks.began,
          lockMs: marks.locked - marks.open,
        },
        'dispatch claim',
      );
    }
    return tasks;
  }

  private async claimLocked(
    workspaceId: WorkspaceId,
    campaignId: string,
    now: number,
    locked: 'skip' | 'wait',
    marks: { open: number; locked: number },
  ): Promise<TaskRow[]> {
    return this.unitOfWork.run(async (tx) => {
      marks.open = performance.now();
      const c = await this.dispatch.lockCampaign(workspaceId, campaignId, tx, locked);
      marks.locked = performance.now();
      if (!c || !DIALLING.includes(c.status) || (c.startAt && c.startAt.getTime() > now)) return [];
      const live = await this.dispatch.liveByPool(workspaceId, campaignId, tx);
      let free = c.maxConcurrency - [...live.values()].reduce((a, b) => a + b, 0);
      const claimedIds: string[] = [];
      const rescheduled: MovedTask[] = [];
      for (const pool of await this.campaigns.pools(workspaceId, campaignId, tx)) {
        if (free <= 0) break;
        if (!pool.isActive) continue;
        const cap = (pool.type === 'Parallel' ? pool.maxParallelItems : 1) - (live.get(pool.id) ?? 0);
        if (cap <= 0) continue;
        const picked = await this.dispatch.pick(
          workspaceId,
          campaignId,
          pool.id,
          pool.type,
          Math.min(cap, free),
          new Date(now),
          tx,
          // Under a completed campaign only tasks retried since dial.
          c.status !== 'running',
        );
        for (const t of picked) {
          const next = this.windowOpening(t, now);
          if (next === now) {
            claimedIds.push(t.id);
            free -= 1;
          } else {
            const row = await this.tasks.update(
              workspaceId,
              t.id,
              { status: 'scheduled', scheduled_at: new Date(next) },
              tx,
            );
            rescheduled.push({ task: row, previous: 'pending' });
          }
        }
      }
      const queued = claimedIds.length
        ? await this.dispatch.markQueued(workspaceId, claimedIds, this.instance.id, tx)
        : [];
      await this.events.tasks(tx, workspaceId, [...rescheduled, ...queued]);
      return queued.map((m) => m.task);
    });
  }

  /** `now` when the task's window is open, else its next opening. */
  private windowOpening(t: PickedTask, now: number): number {
    if (!t.window) return now;
    return nextInWindow(now, t.window, zoneOf(t, t.contact_timezone)) ?? now;
  }

  /** Places the claimed tasks a few at a time; once a workspace has no call slot, its other tasks go back. */
  private async place(claimed: TaskRow[], now: number): Promise<number> {
    let started = 0;
    const full = new Set<string>();
    await eachLimited(claimed, PLACE_PARALLELISM, async (task) => {
      if (task.type === 'make_call' && full.has(task.workspace_id)) {
        await this.runner.release(task);
        return;
      }
      const result = await this.runner.run(task, now).catch(async (err: Error) => {
        this.logger.error({ err: err.message, taskId: task.id }, 'task run failed');
        // Not left claimed until the stuck-claim sweep: started if its call was made, else pending again.
        await this.settlement
          .recover({ workspace_id: task.workspace_id, id: task.id }, now, { own: true })
          .catch((e: Error) => this.logger.warn({ err: e.message, taskId: task.id }, 'task recovery failed'));
        return 'gone' as const;
      });
      if (result === 'started') started += 1;
      if (result === 'no_slot') full.add(task.workspace_id);
    });
    return started;
  }
}
