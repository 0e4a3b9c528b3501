import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { CallEnded, WrongCallStatus } from '@/common/errors/domain-errors';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { AgentContextReader, TurnContext } from '@/modules/conversations/agent-context';
import { ConversationMessagesService } from '@/modules/conversations/conversation-messages.service';
import { MAX_SUMMARIES } from '@/modules/conversations/memorize';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import {
  outcomeOf,
  REPLY_HISTORY,
  TakeTurnOptions,
  TurnEvent,
  TurnProgress,
  TurnRuntime,
  turnStream,
} from '@/modules/runtime/public';
import { MessageResponse, TurnAction } from '@/modules/conversations/dto/responses';
import type { Message } from '@/modules/conversations/message.entity';
import { TelephonyRegistry } from '@/providers/telephony/telephony.registry';
import { SipDirectory } from '@/modules/sip/sip-directory';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { Call, ForwardedTo } from '../call.entity';
import { callInstructions, conversationOf } from './call-context';
import { CallLifecycle } from './call-lifecycle.service';
import { CallLive } from './call-live';
import { EndReason, isEnded } from './call-states';
import { CallsRepository, CallViewRow } from '../calls.repository';
import { CallResponse } from '../dto/responses';
import { CALL_MEDIA, CallMedia } from '../call-media.port';
import { CallTurnResponse, DEFAULT_FORWARD_FAILED, LoadedCall } from './call-runtime.types';

export * from './call-runtime.types';

/** What a turn reads with the call row: the prompt's last messages and the contact's earlier summaries. */
export const FOR_TURN = { history: REPLY_HISTORY, summaries: MAX_SUMMARIES };

/**
 * What happens on an answered call: the agent's first message, the customer's turns through the conversation
 * pipeline (guards, routing, the model), rule actions as telephony (hang up, forward), and the steps live actions
 * (`CallActions`) and timers (`CallTimers`) share: say, end, bridge, hand over. Every status change goes through
 * CallLifecycle under the row lock.
 */
@Injectable()
export class CallRuntime implements OnModuleInit {
  private readonly logger = new Logger(CallRuntime.name);
  /**
   * Set by CallVoicemail: answers a turn itself when an outbound call's first words are a voicemail greeting (its
   * events go to `emit`).
   */
  screen: (
    read: LoadedCall,
    text: string,
    live: TakeTurnOptions | undefined,
    emit: (event: TurnProgress) => void,
  ) => Promise<CallTurnResponse | null> = async () => null;

  constructor(
    private readonly calls: CallsRepository,
    private readonly lifecycle: CallLifecycle,
    private readonly turns: TurnRuntime,
    private readonly conversations: ConversationsService,
    private readonly messages: ConversationMessagesService,
    private readonly agents: AgentContextReader,
    private readonly telephony: TelephonyRegistry,
    private readonly live: CallLive,
    private readonly unitOfWork: UnitOfWork,
    private readonly sip: SipDirectory,
    /** The call's audio (the voice module's, through the CALL_MEDIA port). */
    @Inject(CALL_MEDIA) readonly media: CallMedia,
  ) {}

  onModuleInit(): void {
    this.lifecycle.onAnswered = (call) => this.greet(call);
  }

  private async load(workspaceId: WorkspaceId, callId: string): Promise<Call> {
    const call = await this.calls.findById(workspaceId, callId);
    if (!call) throw AppException.notFound('Call');
    return call;
  }

  /**
   * The call row and the agent configuration version, in one statement (every turn and action reads it); for a turn
   * (the default) also the prompt's last messages and the contact's summaries.
   */
  async loadForTurn(workspaceId: WorkspaceId, callId: string, forTurn = true): Promise<LoadedCall> {
    const loaded = await this.calls.findWithAgentVersion(workspaceId, callId, forTurn ? FOR_TURN : {});
    if (!loaded) throw AppException.notFound('Call');
    return loaded;
  }

  /**
   * The call's agent and its settings: kept by the reader between turns of the call and read again only when the
   * workspace's agent configuration version read with the call row has moved (any change to the agent, its
   * collections or settings).
   */
  context(loaded: LoadedCall): Promise<TurnContext> {
    return this.agents.forTurn(loaded.call.workspaceId, loaded.call.agentId!, loaded.agentConfigVersion);
  }

  /** The agent speaks first once the call is answered, when it has a first message. */
  async greet(call: Call): Promise<void> {
    if (call.firstMessage) await this.say(call, call.firstMessage);
  }

  /** A message the agent says on the call: stored as its message, published, and the silence clock restarted. */
  async say(call: Pick<Call, 'workspaceId' | 'id' | 'provider'>, text: string): Promise<Message> {
    // The message and the silence clock side by side (the clock restarts from now, the moment the words are
    // decided), then the feed.
    const [message] = await Promise.all([
      this.messages.speak(call.workspaceId, call.id, text),
      this.activity(call, new Date()),
    ]);
    await this.live.publish(call.id, 'transcript', MessageResponse.of(message));
    await this.media.speak(call.workspaceId, call.id, text, message.id, call.provider);
    return message;
  }

  /** Someone spoke: the silence clock restarts from here (the armed silence timer re-arms itself from it). */
  async activity(call: Pick<Call, 'workspaceId' | 'id'>, at: Date): Promise<void> {
    await this.calls.touch(call.workspaceId, call.id, at);
  }

  /**
   * One customer turn on an answered call (sandbox `say` and `dtmf`, or a transcribed utterance), started at once, as
   * the turn's events (TurnRuntime's), the last one's outcome carrying the call as the turn left it. `loaded` is the
   * call row (loadForTurn) when the caller has just read it; `live` reports the reply as the model writes it and
   * makes the turn cancellable or speculative (a turn cancelled before its commit ends with TurnCancelled and leaves
   * nothing: no message, no activity, nothing published). A rule's action (hang up, forward) is taken before the end.
   */
  customerTurn(
    workspaceId: WorkspaceId,
    callId: string,
    text: string,
    messageType: 'text' | 'dtmf' = 'text',
    loaded?: LoadedCall,
    live?: TakeTurnOptions,
  ): AsyncIterableIterator<TurnEvent<CallTurnResponse>> {
    return turnStream((emit) => this.turn(workspaceId, callId, text, messageType, loaded, live, emit));
  }

  private async turn(
    workspaceId: WorkspaceId,
    callId: string,
    text: string,
    messageType: 'text' | 'dtmf',
    loaded: LoadedCall | undefined,
    live: TakeTurnOptions | undefined,
    emit: (event: TurnProgress) => void,
  ): Promise<CallTurnResponse> {
    const read = loaded ?? (await this.loadForTurn(workspaceId, callId));
    const call = read.call;
    if (isEnded(call.status)) throw new CallEnded(callId);
    if (call.status !== 'in-progress') throw new WrongCallStatus(call.id, call.status);
    if (call.handledBy === 'Human') throw AppException.conflict('Call is forwarded to a human');
    const screened = messageType === 'text' ? await this.screen(read, text, live, emit) : null;
    if (screened) return screened;
    const context = await this.context(read);
    const agent = context.agent;
    // Without a rule's action, the call's activity with its answer is written beside the reply message.
    let touched: Promise<CallViewRow | null> | null = null;
    const events = this.turns.takeTurn(
      {
        workspaceId,
        conversationId: callId,
        content: text,
        muted: call.muted,
        customPrompt: callInstructions(agent.custom_prompt, call),
        messageType,
        context,
        conversation: conversationOf(call),
        history: read.history,
        summaries: read.summaries,
        besideReply: (at, action) => {
          if (action) return Promise.resolve();
          touched = this.calls.touchAndView(workspaceId, callId, at);
          return touched;
        },
      },
      live,
    );
    const turn = await outcomeOf(events, emit);
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
  async end(workspaceId: WorkspaceId, callId: string, reason: EndReason): Promise<CallResponse> {
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

  /** A forward to a number or extension: connected, a human has the call; else the AI says so and carries on. */
  async bridge(
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
    const connected = await adapter
      .forward(
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
      )
      .then((r) => r.connected)
      .catch((err: Error) => {
        // The provider refusing the redirect is a forward that did not connect.
        this.logger.warn({ callId: call.id, err: err.message }, 'forward refused by the provider');
        return false;
      });
    if (!connected) {
      // The call may have ended while the other leg rang: nobody is left to hear it.
      const now = await this.calls.findById(call.workspaceId, call.id);
      if (now && !isEnded(now.status)) await this.say(call, onError ?? DEFAULT_FORWARD_FAILED);
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
  async handOver(call: Call, agentId: string, onSuccess: string | null): Promise<void> {
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
}
