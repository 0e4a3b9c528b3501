import { Injectable, Logger } from '@nestjs/common';
import { CallEnded, ConversationClosed, WrongCallStatus } from '@/common/errors/domain-errors';
import { AgentContextReader } from '@/modules/conversations/agent-context';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { Call } from '../call.entity';
import { voiceText } from './call-context';
import { CallLifecycle } from './call-lifecycle.service';
import { CallRuntime } from './call-runtime.service';
import { DEFAULT_END_MESSAGE } from './call-runtime.types';
import { CallsRepository } from '../calls.repository';

/** The call's timers, run by the calls queue's delayed jobs: ring timeout, maximum duration, silence. */
@Injectable()
export class CallTimers {
  private readonly logger = new Logger(CallTimers.name);

  constructor(
    private readonly calls: CallsRepository,
    private readonly lifecycle: CallLifecycle,
    private readonly runtime: CallRuntime,
    private readonly agents: AgentContextReader,
  ) {}

  /** `no-answer` when the call still rings at its ring timeout. */
  async ringTimeout(workspaceId: WorkspaceId, callId: string): Promise<void> {
    const call = await this.calls.findById(workspaceId, callId);
    if (call?.status !== 'ringing') return;
    await this.lifecycle
      .move(workspaceId, callId, 'no-answer', {
        endReason: 'no_answer',
        check: (c) => this.still(c, 'ringing'),
      })
      .catch(ignoreMoved);
  }

  /** The hard end of an answered call. */
  async maxDuration(workspaceId: WorkspaceId, callId: string): Promise<void> {
    const call = await this.calls.findById(workspaceId, callId);
    if (call?.status !== 'in-progress') return;
    await this.runtime.end(workspaceId, callId, 'max_duration').catch(ignoreMoved);
  }

  /**
   * The silence timer armed at `activityMs`. Newer activity re-arms it from the last activity (one timer per call,
   * none added per turn); else no one spoke for the silence timeout: the agent says goodbye and hangs up.
   */
  async silenceTimeout(workspaceId: WorkspaceId, callId: string, activityMs: number): Promise<void> {
    const call = await this.calls.findById(workspaceId, callId);
    if (call?.status !== 'in-progress' || call.handledBy === 'Human') return;
    const lastMs = call.lastActivityAt?.getTime() ?? 0;
    if (lastMs > activityMs) {
      await this.lifecycle.scheduleSilence(call, lastMs);
      return;
    }
    const agent = await this.agents.agent(workspaceId, call.agentId!).catch(() => null);
    const endText = agent && voiceText(agent, 'end_call_message');
    // The goodbye is stored, published and said on the call (the hang-up waits until it was played, bounded). One
    // that cannot be said never keeps the call open: the hang-up comes first in importance.
    await this.runtime.say(call, endText ?? DEFAULT_END_MESSAGE).catch((err: unknown) => {
      if (err instanceof CallEnded || err instanceof ConversationClosed) return;
      this.logger.warn({ err: (err as Error).message, callId }, 'silence timeout: the goodbye was not said');
    });
    await this.runtime.end(workspaceId, callId, 'silence_timeout').catch(ignoreMoved);
  }

  private still(call: Call, status: Call['status']): void {
    if (call.status !== status) throw new WrongCallStatus(call.id, call.status);
  }
}

/** A timer that lost a race with another move has nothing left to do. */
function ignoreMoved(err: unknown): void {
  if (err instanceof CallEnded || err instanceof WrongCallStatus) return;
  throw err;
}
