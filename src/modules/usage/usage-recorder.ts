import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { isPgError, PG_FOREIGN_KEY_VIOLATION } from '@/common/persistence/pg-errors';
import { runInUsageScope, UsageReport, UsageScope, withinUsageScope } from '@/providers/usage-report';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { REPORTED, reported, ReportedCounters } from './usage-counters';
import { UsageAddition, UsageRepository } from './usage.repository';

/** Reports are gathered for this long, then written in one statement. */
export const USAGE_FLUSH_MS = 250;
/** At most this many conversations per statement. */
const BATCH = 200;

/**
 * Records usage off the hot path: a report only adds to counters in memory (it never waits, never throws); a timer
 * writes what gathered, every conversation's additions in one upsert, at most every USAGE_FLUSH_MS. A write that
 * fails is logged and dropped (usage is an account of work done, never a reason to fail it); a process that dies
 * loses at most its last quarter second. The shutdown writes what is left.
 */
@Injectable()
export class UsageRecorder implements OnModuleDestroy {
  private readonly logger = new Logger(UsageRecorder.name);
  private pending = new Map<string, UsageAddition>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly repo: UsageRepository) {}

  /** Where the reports of work done for this conversation go. */
  scope(workspaceId: WorkspaceId, conversationId: string): UsageScope {
    return { report: (usage) => this.add(workspaceId, conversationId, usage) };
  }

  /** Runs `work` (and all it starts) with the usage its outside services report counted for the conversation. */
  within<R>(workspaceId: WorkspaceId, conversationId: string, work: () => R): R {
    return runInUsageScope(this.scope(workspaceId, conversationId), work);
  }

  /** `port` with every call counted for the conversation (a call's speech services, used from its media session). */
  wrap<T extends object>(workspaceId: WorkspaceId, conversationId: string, port: T): T {
    return withinUsageScope(port, this.scope(workspaceId, conversationId));
  }

  add(workspaceId: WorkspaceId, conversationId: string, usage: UsageReport): void {
    const add = reported(usage);
    if (!REPORTED.some((k) => add[k] > 0)) return;
    const known = this.pending.get(conversationId);
    if (known && known.workspaceId === workspaceId) for (const k of REPORTED) known.add[k] += add[k];
    else this.pending.set(conversationId, { workspaceId, conversationId, add });
    this.timer ??= setTimeout(() => void this.flush(), USAGE_FLUSH_MS).unref();
  }

  /** Writes what gathered so far; resolves once it (and any write before it) is done. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.writing = this.writing.then(async () => {
      for (let i = 0; i < batch.length; i += BATCH) await this.write(batch.slice(i, i + BATCH));
    });
    return this.writing;
  }

  async onModuleDestroy(): Promise<void> {
    await this.flush();
  }

  private async write(batch: UsageAddition[]): Promise<void> {
    try {
      await this.repo.add(batch);
    } catch (err) {
      // A conversation that no longer exists fails the whole statement: the others are written one by one.
      if (isPgError(err, PG_FOREIGN_KEY_VIOLATION) && batch.length > 1) {
        for (const one of batch) await this.write([one]);
        return;
      }
      this.logger.warn(
        { err: (err as Error).message, conversations: batch.length, usage: total(batch) },
        'usage not recorded',
      );
    }
  }
}

function total(batch: UsageAddition[]): ReportedCounters {
  const sum = reported({});
  for (const a of batch) for (const k of REPORTED) sum[k] += a.add[k];
  return sum;
}
