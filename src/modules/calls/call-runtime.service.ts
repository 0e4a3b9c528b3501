import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { AgentContextReader, TurnContext } from '@/modules/conversations/agent-context';
import { ConversationTurnsService } from '@/modules/conversations/conversation-turns.service';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import { MessageResponse, TurnAction, TurnResponse } from '@/modules/conversations/dto/responses';
import type { Message } from '@/modules/conversations/message.entity';
import { TelephonyRegistry } from '@/providers/telephony/telephony.registry';
import { SipDirectory } from '@/modules/sip/sip-directory';
import type { Call, ForwardedTo } from './call.entity';
import { callInstructions, voiceText } from './call-context';
import { CallLifecycle } from './call-lifecycle.service';
import { CallLive } from './call-live';
import { EndReason, isEnded } from './call-states';
import { CallsRepository, CallViewRow } from './calls.repository';
import { CallResponse } from './dto/responses';

export const DEFAULT_FORWARD_MESSAGE = 'Transferring your call now.';
export const DEFAULT_FORWARD_FAILED = "I couldn't connect you, let me keep helping.";
export const DEFAULT_END_MESSAGE = 'Good Bye';

export type LiveAction =
  | { action: 'say'; message: string; end_call_after_spoken?: boolean; interrupt?: boolean }
  | { action: 'forward'; number?: string; agent_uuid?: string; message?: string; whisper?: boolean }
  | { action: 'hangup'; message?: string }
  | { action: 'mute' }
  | { action: 'unmute' };

export interface ActionOutcome {
  muted?: boolean;
}

export interface CallTurnResponse extends TurnResponse {
  call: CallResponse;
}

/** The call's audio, where it has any (Twilio media streams); the sandbox has none. */
export interface CallMedia {
  /**
   * Speaks a stored agent message on the call; resolves once it was played (or could not be). `provider`, the
   * call's when the caller has the row, spares the media side a read of it for a call without media.
   */
  speak(
    workspaceId: string,
    callId: string,
    text: string,
    messageId: string,
    provider?: string,
  ): Promise<void>;
  /** Stops what the agent is saying now. */
  stop(callId: string): void;
}

/** A call row as read for a turn or an action, with the workspace's agent configuration version beside it. */
export interface LoadedCall {
  call: Call;
  agentConfigVersion: string | null;
}

const NO_MEDIA: CallMedia = { speak: async () => undefined, stop: () => undefined };

/**
 * What happens on an answered call: the agent's first message, the customer's turns through the conversation
 * pipeline (guards, routing, the model), rule actions as telephony (hang up, forward), live actions, and the
 * silence and duration limits. Every status change goes through CallLifecycle under the row lock.
 */
@Injectable()
export class CallRuntime implements OnModuleInit {
  private readonly logger = new Logger(CallRuntime.name);
  /** Set by the voice runtime. */
  media: CallMedia = NO_MEDIA;

  constructor(
    private readonly calls: CallsRepository,
    private readonly lifecycle: CallLifecycle,
    private readonly turns: ConversationTurnsService,
    private readonly conversations: ConversationsService,
    private readonly agents: AgentContextReader,
    private readonly telephony: TelephonyRegistry,
    private readonly live: CallLive,
    private readonly unitOfWork: UnitOfWork,
    private readonly sip: SipDirectory,
  ) {}

  onModuleInit(): void {
    this.lifecycle.onAnswered = (call) => this.greet(call);
  }

  private async load(workspaceId: string, callId: string): Promise<Call> {
    const call = await this.calls.findById(workspaceId, callId);
    if (!call) throw AppException.notFound('Call');
    return call;
  }

  /** The call row and the agent configuration version, in one statement (every turn and action reads it). */
  async loadForTurn(workspaceId: string, callId: string): Promise<LoadedCall> {
    const loaded = await this.calls.findWithAgentVersion(workspaceId, callId);
    if (!loaded) throw AppException.notFound('Call');
    return loaded;
  }

  /**
   * The call's agent and its settings: kept by the reader between turns of the call and read again only when the
   * workspace's agent configuration version read with the call row has moved (any change to the agent, its
   * collections or settings).
   */
  private context(loaded: LoadedCall): Promise<TurnContext> {
    return this.agents.forTurn(loaded.call.workspaceId, loaded.call.agentId!, loaded.agentConfigVersion);
  }

  /** The agent speaks first once the call is answered, when it has a first message. */
  async greet(call: Call): Promise<void> {
    if (call.firstMessage) await this.say(call, call.firstMessage);
  }

  /** A message the agent says on the call: stored as its message, published, and the silence clock restarted. */
  private async say(call: Pick<Call, 'workspaceId' | 'id' | 'provider'>, text: string): Promise<Message> {
    // The message and the silence clock side by side (the clock restarts from now, the moment the words are
    // decided), then the feed.
    const [message] = await Promise.all([
      this.turns.speak(call.workspaceId, call.id, text),
      this.activity(call, new Date()),
    ]);
    await this.live.publish(call.id, 'transcript', MessageResponse.of(message));
    await this.media.speak(call.workspaceId, call.id, text, message.id, call.provider);
    return message;
  }

  /** Someone spoke: the silence clock restarts from here (the armed silence timer re-arms itself from it). */
  private async activity(call: Pick<Call, 'workspaceId' | 'id'>, at: Date): Promise<void> {
    await this.calls.touch(call.workspaceId, call.id, at);
  }

  /**
   * One customer turn on an answered call (sandbox `say` and `dtmf`, or a transcribed utterance). `loaded` is the
   * call row (loadForTurn) when the caller has just read it.
   */
  async customerTurn(
    workspaceId: string,
    callId: string,
    text: string,
    messageType: 'text' | 'dtmf' = 'text',
    loaded?: LoadedCall,
    onDelta?: (text: string) => void,
  ): Promise<CallTurnResponse> {
    const read = loaded ?? (await this.loadForTurn(workspaceId, callId));
    const call = read.call;
    if (isEnded(call.status)) throw new AppException('CALL_ENDED', 'Call has ended');
    if (call.status !== 'in-progress') throw AppException.conflict(`Call is ${call.status}`);
    if (call.handledBy === 'Human') throw AppException.conflict('Call is forwarded to a human');
    const context = await this.context(read);
    const agent = context.agent;
    // Without a rule's action, the call's activity with its answer is written beside the reply message.
    let touched: Promise<CallViewRow | null> | null = null;
    const turn = await this.turns.takeTurn(workspaceId, callId, text, {
      muted: call.muted,
      customPrompt: callInstructions(agent.custom_prompt, call),
      messageType,
      context,
      onDelta,
      besideReply: (at, action) => {
        if (action) return Promise.resolve();
        touched = this.calls.touchAndView(workspaceId, callId, at);
        return touched;
      },
    });
    const published = Promise.all([
      this.live.publish(callId, 'transcript', turn.message),
      turn.reply && this.live.publish(callId, 'transcript', turn.reply),
    ]);
    const at = new Date(turn.reply?.created_at ?? turn.message.created_at);
    let after: CallViewRow | null;
    if (turn.action) {
      await published;
      await this.activity(call, at);
      // A rule's words are spoken before its action (the media session speaks only plain replies).
      if (turn.reply)
        await this.media.speak(workspaceId, callId, turn.reply.content, turn.reply.uuid, call.provider);
      await this.ruleAction(call, agent, turn.action);
      after = await this.calls.view(workspaceId, callId);
    } else {
      // The transcript's publish and the call's activity with its answer side by side (the activity is already
      // written when the turn had a reply step).
      published.catch(() => undefined); // awaited below
      after = await (touched ?? this.calls.touchAndView(workspaceId, callId, at));
      await published;
    }
    return { ...turn, call: CallResponse.of(after!) };
  }

  /** A guard or routing rule fired on a call: its words were said; now hang up or forward. */
  private async ruleAction(call: Call, agent: AgentResponse, action: TurnAction): Promise<void> {
    if (action.kind === 'guard' && action.type === 'end_conversation') {
      await this.end(call.workspaceId, call.id, 'agent_hangup');
      return;
    }
    const d = action.destination;
    if (!d?.type) return;
    const rule = agent.routing_rules.find((r) => r.uuid === action.rule_uuid);
    const onError = rule?.voice_on_error ?? null;
    const onSuccess = rule?.voice_on_success ?? null;
    if (d.type === 'agent' && d.agent_uuid) await this.handOver(call, d.agent_uuid, onSuccess);
    else if ((d.type === 'phone_number' || d.type === 'extension') && d.value)
      await this.bridge(
        call,
        { type: d.type, value: d.value },
        action.type === 'warm_transfer',
        onError,
        onSuccess,
      );
  }

  /** Ends an answered call (or cancels one not answered yet) for the service's own reason. */
  async end(workspaceId: string, callId: string, reason: EndReason): Promise<CallResponse> {
    const call = await this.load(workspaceId, callId);
    const answered = call.status === 'in-progress';
    const adapter = this.telephony.for(call.provider);
    const response = await this.lifecycle.move(workspaceId, callId, answered ? 'completed' : 'canceled', {
      endReason: answered ? reason : 'canceled',
    });
    await adapter
      .hangup({ workspaceId, callId, providerCallId: call.providerCallId, to: call.toNumber }, answered)
      .catch((err: Error) => this.logger.warn({ err: err.message, callId }, 'provider hang-up failed'));
    return response;
  }

  /** Performs a live action on the owner, in the order dispatched; the action is stored and published. */
  async perform(
    workspaceId: string,
    callId: string,
    a: LiveAction,
    row?: Promise<LoadedCall>,
  ): Promise<ActionOutcome> {
    const loaded = await (row ?? this.loadForTurn(workspaceId, callId));
    const call = loaded.call;
    if (isEnded(call.status)) throw new AppException('CALL_ENDED', 'Call has ended');
    if (a.action !== 'hangup') {
      if (call.status !== 'in-progress') throw AppException.conflict(`Call is ${call.status}`);
      if (call.handledBy === 'Human') throw AppException.conflict('Call is forwarded to a human');
    }
    // Stored before its effect so the transcript reads in order (the action, then what it made the agent say); its
    // publish is not waited for before the effect (one connection keeps the feed in order), only before the answer.
    const { published: announced } =
      call.status === 'in-progress' ? await this.record(call, a) : { published: Promise.resolve() };
    announced.catch(() => undefined); // awaited below
    try {
      return await this.act(workspaceId, callId, call, loaded, a);
    } finally {
      await announced;
    }
  }

  private async act(
    workspaceId: string,
    callId: string,
    call: Call,
    loaded: LoadedCall,
    a: LiveAction,
  ): Promise<ActionOutcome> {
    switch (a.action) {
      case 'say':
        if (a.interrupt) this.media.stop(callId);
        await this.say(call, a.message);
        if (a.end_call_after_spoken) await this.end(workspaceId, callId, 'api_hangup');
        return {};
      case 'hangup': {
        if (call.status === 'in-progress') {
          const agent = await this.context(loaded)
            .then((c) => c.agent)
            .catch(() => null);
          const endText = agent && voiceText(agent, 'end_call_message');
          await this.say(call, a.message ?? endText ?? DEFAULT_END_MESSAGE);
        }
        await this.end(workspaceId, callId, 'api_hangup');
        return {};
      }
      case 'mute':
      case 'unmute': {
        const muted = a.action === 'mute';
        if (muted) this.media.stop(callId);
        await this.unitOfWork.run(async (m) => {
          const locked = await this.calls.lock(workspaceId, callId, m);
          if (locked && !isEnded(locked.status)) {
            locked.muted = muted;
            await this.calls.save(workspaceId, locked, m);
          }
        });
        return { muted };
      }
      case 'forward':
        await this.say(call, a.message ?? DEFAULT_FORWARD_MESSAGE);
        if (a.agent_uuid) await this.handOver(call, a.agent_uuid, null);
        else if (a.number)
          await this.bridge(call, { type: 'phone_number', value: a.number }, !!a.whisper, null, null);
        return {};
    }
  }

  /**
   * Stores the action as a system message; answers its publish on the live feed, under way. Its commit does not wait
   * for the WAL flush: the action's effect (a spoken message, the call's new state) commits synchronously after it
   * and before the action is acknowledged, and that flush writes the record out too. An action that fails or changes
   * nothing leaves its record to the WAL writer (a fraction of a second), which a PostgreSQL crash could lose.
   */
  private async record(call: Call, a: LiveAction): Promise<{ published: Promise<void> }> {
    const message = await this.turns.speak(call.workspaceId, call.id, JSON.stringify(a), {
      sender: 'system',
      messageType: 'action',
      flushLater: true,
    });
    return { published: this.live.publish(call.id, 'action', MessageResponse.of(message)) };
  }

  /** A forward to a number or extension: connected, a human has the call; else the AI says so and carries on. */
  private async bridge(
    call: Call,
    target: { type: 'phone_number' | 'extension'; value: string },
    whisper: boolean,
    onError: string | null,
    onSuccess: string | null,
  ): Promise<void> {
    const adapter = this.telephony.for(call.provider);
    const sip =
      target.type === 'extension'
        ? await this.sip.extensionTarget(call.workspaceId, call.agentId, this.lineOf(call), target.value)
        : null;
    const { connected } = await adapter.forward(
      {
        workspaceId: call.workspaceId,
        callId: call.id,
        providerCallId: call.providerCallId,
        to: call.toNumber,
      },
      {
        ...target,
        whisper: whisper
          ? `Call from ${call.direction === 'Outbound' ? call.toNumber : call.fromNumber}`
          : null,
        sip,
      },
    );
    if (!connected) {
      await this.say(call, onError ?? DEFAULT_FORWARD_FAILED);
      return;
    }
    if (onSuccess) await this.say(call, onSuccess);
    await this.setForward(call, { type: target.type, value: target.value, agent_uuid: null }, 'Human');
  }

  /** The workspace number the call is on (the caller ID outbound, the dialled number inbound). */
  private lineOf(call: Call): string {
    return call.direction === 'Outbound' ? call.fromNumber : call.toNumber;
  }

  /** Another agent of the workspace takes over the same call. */
  private async handOver(call: Call, agentId: string, onSuccess: string | null): Promise<void> {
    await this.setForward(call, { type: 'agent', value: null, agent_uuid: agentId }, 'AI', agentId);
    if (onSuccess) await this.say(call, onSuccess);
  }

  private async setForward(
    call: Call,
    to: ForwardedTo,
    handledBy: 'AI' | 'Human',
    agentId?: string,
  ): Promise<void> {
    const view = await this.unitOfWork.run(async (m) => {
      const locked = await this.calls.lock(call.workspaceId, call.id, m);
      if (!locked || isEnded(locked.status)) return null;
      locked.forwardedTo = to;
      locked.handledBy = handledBy;
      if (agentId) {
        locked.agentId = agentId;
        await this.conversations.handOver(m, call.workspaceId, call.id, agentId);
      }
      await this.calls.save(call.workspaceId, locked, m);
      return this.calls.view(call.workspaceId, call.id, m);
    });
    if (view) await this.live.publish(call.id, 'status', CallResponse.of(view));
  }

  /** `no-answer` when the call still rings at its ring timeout. */
  async ringTimeout(workspaceId: string, callId: string): Promise<void> {
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
  async maxDuration(workspaceId: string, callId: string): Promise<void> {
    const call = await this.calls.findById(workspaceId, callId);
    if (call?.status !== 'in-progress') return;
    await this.end(workspaceId, callId, 'max_duration').catch(ignoreMoved);
  }

  /**
   * The silence timer armed at `activityMs`. Newer activity re-arms it from the last activity (one timer per call,
   * none added per turn); else no one spoke for the silence timeout: the agent says goodbye and hangs up.
   */
  async silenceTimeout(workspaceId: string, callId: string, activityMs: number): Promise<void> {
    const call = await this.calls.findById(workspaceId, callId);
    if (call?.status !== 'in-progress' || call.handledBy === 'Human') return;
    const lastMs = call.lastActivityAt?.getTime() ?? 0;
    if (lastMs > activityMs) {
      await this.lifecycle.scheduleSilence(call, lastMs);
      return;
    }
    const agent = await this.agents.agent(workspaceId, call.agentId!).catch(() => null);
    const endText = agent && voiceText(agent, 'end_call_message');
    // A goodbye that cannot be stored or published never keeps the call open: the hang-up comes first in importance.
    await this.turns
      .speak(workspaceId, callId, endText ?? DEFAULT_END_MESSAGE)
      .then((m) => this.live.publish(callId, 'transcript', MessageResponse.of(m)))
      .catch((err: unknown) => {
        if (err instanceof AppException && (err.code === 'CONFLICT' || err.code === 'CALL_ENDED')) return;
        this.logger.warn(
          { err: (err as Error).message, callId },
          'silence timeout: the goodbye was not said',
        );
      });
    await this.end(workspaceId, callId, 'silence_timeout').catch(ignoreMoved);
  }

  private still(call: Call, status: Call['status']): void {
    if (call.status !== status) throw AppException.conflict(`Call is ${call.status}`);
  }
}

/** A timer that lost a race with another move has nothing left to do. */
function ignoreMoved(err: unknown): void {
  if (err instanceof AppException && (err.code === 'CONFLICT' || err.code === 'CALL_ENDED')) return;
  throw err;
}
