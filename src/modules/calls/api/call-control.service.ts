import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppException } from '@/common/errors/app.exception';
import { CallEnded, WrongCallStatus } from '@/common/errors/domain-errors';
import type { ErrorCode } from '@/common/errors/error-codes';
import { newId } from '@/common/persistence/base.entity';
import { REDIS } from '@/common/redis/redis.module';
import { AgentContextReader, agentInBody } from '@/modules/conversations/agent-context';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { CallInstance } from '../runtime/call-instance';
import { CallLive } from '../runtime/call-live';
import { CallActions } from './call-actions.service';
import { CallRuntime, LiveAction, LoadedCall } from '../runtime/call-runtime.service';
import { isEnded } from '../runtime/call-states';
import { CallsRepository } from '../calls.repository';
import type { CallActionResponse } from '../dto/responses';

const ACK_TIMEOUT_MS = 10_000;

interface ControlEntry {
  action_uuid: string;
  workspace_id: WorkspaceId;
  reply_to: string;
  dispatched_at: string;
  body: LiveAction;
}

interface Ack {
  action_uuid: string;
  ok: boolean;
  muted?: boolean;
  code?: ErrorCode;
  message?: string;
}

export const controlStream = (callId: string) => `call:${callId}:control`;

/**
 * Appends the entry to the call's stream and, when the owner named in the call row is alive (its heartbeat key),
 * wakes it: one round trip. Answers 1 when the owner was woken, 0 when its heartbeat has expired (the caller then
 * takes the call over). KEYS: stream, owner's heartbeat; ARGV: entry, owner's channel, wake-up message.
 */
const DISPATCH = `
redis.call('XADD', KEYS[1], '*', 'entry', ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('PUBLISH', ARGV[2], ARGV[3])
  return 1
end
return 0`;

/** Removes a performed entry and acknowledges it: one round trip. KEYS: stream; ARGV: entry id, channel, ack. */
const DONE = `
redis.call('XDEL', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`;

/**
 * Live actions: appended to the call's Redis stream `call:{uuid}:control` and performed, in stream order, by the
 * replica that owns the call (its media session). The requesting replica answers once the owner acknowledges, so
 * in the sandbox the action has taken effect when the answer arrives. A call whose owner died is taken over.
 */
@Injectable()
export class CallControl implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CallControl.name);
  private readonly waiting = new Map<string, (ack: Ack) => void>();
  /** Per call, the drain in progress: actions of one call run one after another. */
  private readonly draining = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private stops: (() => Promise<void>)[] = [];

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly calls: CallsRepository,
    private readonly runtime: CallRuntime,
    private readonly actions: CallActions,
    private readonly agents: AgentContextReader,
    private readonly instance: CallInstance,
    private readonly live: CallLive,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.stops.push(
      await this.live.on<{ workspaceId: WorkspaceId; callId: string }>(
        this.ownerChannel(this.instance.id),
        (m) => this.drain(m.workspaceId, m.callId),
      ),
      await this.live.on<Ack>(this.ackChannel(this.instance.id), (ack) =>
        this.waiting.get(ack.action_uuid)?.(ack),
      ),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.stops.map((s) => s().catch(() => undefined)));
  }

  private ownerChannel(id: string) {
    return this.live.name(`calls:owner:${id}`);
  }

  private ackChannel(id: string) {
    return this.live.name(`calls:ack:${id}`);
  }

  /** Checks the action against the call's state, appends it to the stream and waits for the owner to perform it. */
  async dispatch(workspaceId: WorkspaceId, callId: string, body: LiveAction): Promise<CallActionResponse> {
    const call = await this.calls.findById(workspaceId, callId);
    if (!call) throw AppException.notFound('Call');
    if (isEnded(call.status)) throw new CallEnded(callId);
    if (body.action !== 'hangup') {
      if (call.status !== 'in-progress') throw new WrongCallStatus(call.id, call.status);
      if (call.handledBy === 'Human') throw AppException.conflict('Call is forwarded to a human');
    }
    if (body.action === 'forward') await this.checkForward(workspaceId, body);
    if (body.action === 'forward' && call.channel === 'web')
      throw AppException.conflict('A web call cannot be forwarded: it has no phone line to bridge');
    if (body.action === 'dtmf' && call.channel !== 'phone')
      throw AppException.conflict('Keys can be pressed on phone calls only');

    const entry: ControlEntry = {
      action_uuid: newId(),
      workspace_id: workspaceId,
      reply_to: this.instance.id,
      dispatched_at: new Date().toISOString(),
      body,
    };
    const answer: CallActionResponse = {
      action: body.action,
      action_uuid: entry.action_uuid,
      conversation_uuid: callId,
      dispatched_at: entry.dispatched_at,
    };
    // A forward on a real line says its message, then the other leg rings for up to its ring timeout: it is
    // answered once queued to the owner, and its outcome follows on the live feed; so is a message left on a
    // voicemail, which plays for as long as it lasts. In the sandbox, as every other action, they have taken effect
    // when the answer arrives.
    if ((body.action === 'forward' || body.action === 'voicemail') && !call.isSimulation) {
      await this.send(workspaceId, callId, call.ownerId, entry);
      return answer;
    }
    const acked = new Promise<Ack>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(entry.action_uuid);
        reject(new AppException('SERVICE_UNAVAILABLE', 'The call did not confirm the action in time'));
      }, ACK_TIMEOUT_MS);
      this.waiting.set(entry.action_uuid, (ack) => {
        clearTimeout(timer);
        this.waiting.delete(entry.action_uuid);
        resolve(ack);
      });
    });
    await this.send(workspaceId, callId, call.ownerId, entry);
    const ack = await acked;
    if (!ack.ok) throw new AppException(ack.code ?? 'CONFLICT', ack.message ?? 'The action failed');
    return {
      ...answer,
      ...(ack.muted !== undefined ? { muted: ack.muted } : {}),
      ...(body.action === 'dtmf' ? { digits: body.digits } : {}),
    };
  }

  /** Queues the entry to the call's owner and sets it going: drained here when this replica owns the call. */
  private async send(
    workspaceId: WorkspaceId,
    callId: string,
    current: string | null,
    entry: ControlEntry,
  ): Promise<void> {
    const owner = await this.append(workspaceId, callId, current, entry);
    if (owner === this.instance.id) this.drain(workspaceId, callId);
    else
      this.logger.debug({ callId, actionId: entry.action_uuid, owner }, 'live action sent to the call owner');
  }

  /**
   * Appends the entry and wakes the call's live owner in one round trip (DISPATCH); answers the owner, this replica
   * when it owns the call. A dead owner's call passes to this replica, or to the replica that took it over first,
   * which is then woken.
   */
  private async append(
    workspaceId: WorkspaceId,
    callId: string,
    current: string | null,
    entry: ControlEntry,
  ): Promise<string> {
    const raw = JSON.stringify(entry);
    if (current === this.instance.id) {
      await this.redis.xadd(controlStream(callId), '*', 'entry', raw);
      return current;
    }
    const woken = current
      ? ((await this.redis.eval(
          DISPATCH,
          2,
          controlStream(callId),
          this.instance.heartbeatKey(current),
          raw,
          this.ownerChannel(current),
          JSON.stringify({ workspaceId, callId }),
        )) as number)
      : await this.redis.xadd(controlStream(callId), '*', 'entry', raw).then(() => 0);
    if (woken === 1) return current!;
    const owner = await this.takeOver(workspaceId, callId, current);
    if (owner !== this.instance.id) await this.live.send(this.ownerChannel(owner), { workspaceId, callId });
    return owner;
  }

  /** A dead owner's call passes to this replica (or to the one that claimed it first). */
  private async takeOver(workspaceId: WorkspaceId, callId: string, current: string | null): Promise<string> {
    if (await this.calls.claimOwner(workspaceId, callId, current, this.instance.id)) {
      this.logger.log({ callId, previous: current }, 'call taken over from a replica that is gone');
      return this.instance.id;
    }
    const fresh = await this.calls.findById(workspaceId, callId);
    return fresh?.ownerId ?? this.instance.id;
  }

  private async checkForward(
    workspaceId: WorkspaceId,
    body: Extract<LiveAction, { action: 'forward' }>,
  ): Promise<void> {
    if (!!body.number === !!body.agent_uuid)
      throw AppException.invalid(
        'number',
        'exactly one of number and agent_uuid is required',
        'VALIDATION_ERROR',
      );
    if (body.agent_uuid) await agentInBody(this.agents, workspaceId, body.agent_uuid);
  }

  /** Performs what the call's stream holds, in order, one drain per call at a time; entries go once performed. */
  drain(workspaceId: WorkspaceId, callId: string): void {
    if (this.draining.has(callId)) {
      this.again.add(callId);
      return;
    }
    const run = (async () => {
      do {
        this.again.delete(callId);
        // The call row for the first entry is read alongside the stream (later entries read it again, after the
        // entries before them changed the call).
        const row = this.runtime.loadForTurn(workspaceId, callId, false);
        row.catch(() => undefined); // awaited by the first entry's perform
        const entries = await this.redis.xrange(controlStream(callId), '-', '+');
        for (const [n, [id, fields]] of entries.entries()) {
          const entry = JSON.parse(fields[1]) as ControlEntry;
          const ack = await this.performOne(workspaceId, callId, entry, n === 0 ? row : undefined);
          await this.redis.eval(
            DONE,
            1,
            controlStream(callId),
            id,
            this.ackChannel(entry.reply_to),
            JSON.stringify(ack),
          );
        }
      } while (this.again.has(callId));
    })()
      .catch((err: Error) => this.logger.error({ err: err.message, callId }, 'live action drain failed'))
      .finally(() => this.draining.delete(callId));
    this.draining.set(callId, run);
  }

  private async performOne(
    workspaceId: WorkspaceId,
    callId: string,
    entry: ControlEntry,
    row?: Promise<LoadedCall>,
  ): Promise<Ack> {
    try {
      const outcome = await this.actions.perform(workspaceId, callId, entry.body, row);
      this.logger.debug(
        { callId, actionId: entry.action_uuid, action: entry.body.action, owner: this.instance.id },
        'live action performed',
      );
      return { action_uuid: entry.action_uuid, ok: true, ...outcome };
    } catch (err) {
      if (err instanceof AppException)
        return { action_uuid: entry.action_uuid, ok: false, code: err.code, message: err.message };
      this.logger.error({ err: (err as Error).message, callId }, 'live action failed');
      return {
        action_uuid: entry.action_uuid,
        ok: false,
        code: 'INTERNAL_SERVER_ERROR',
        message: 'An unexpected error occurred',
      };
    }
  }
}
