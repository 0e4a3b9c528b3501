import { Injectable } from '@nestjs/common';
import { newId } from '@/common/persistence/base.entity';
import { RuleEngineService } from '@/modules/agents/rules/rule-engine.service';
import { MetersUsage } from '@/modules/usage/meters-usage.decorator';
import { Traced } from '@/common/telemetry/traced';
import type { RuleDecision } from '@/modules/agents/rules/rule-engine';
import { AgentContextReader, sessionTimeoutMs, TurnContext } from '@/modules/conversations/agent-context';
import type { Conversation, ConversationRef } from '@/modules/conversations/conversation.entity';
import { ConversationMessagesService, Draft } from '@/modules/conversations/conversation-messages.service';
import { ConversationReplyService } from './conversation-reply.service';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import { isVoiceChannel } from '@/modules/conversations/channels';
import {
  ConversationResponse,
  MessageResponse,
  TurnAction,
  TurnResponse,
} from '@/modules/conversations/dto/responses';
import { Message } from '@/modules/conversations/message.entity';
import type { Session } from '@/modules/conversations/session.entity';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { LiveTurn, TurnGate } from './turn-gate';
import type { TurnProgress } from './turn-events';
import { TURN_SPAN } from './turn-span';

/** How a call shapes a turn: a muted agent does not answer; a call's prompt and context replace the agent's. */
export interface TurnOptions {
  /** Store the customer's message only: no rules, no reply. */
  muted?: boolean;
  /** The instructions in force instead of the agent's `custom_prompt` (a call's `prompt`, `about`, `variables`). */
  customPrompt?: string | null;
  /** `dtmf` for key presses. */
  messageType?: string;
  /**
   * The conversation's agent and settings as the caller already read them for this turn (a call's runtime, from
   * what it keeps for the call), so the turn does not read them again.
   */
  context?: TurnContext;
  /**
   * The conversation as the caller knows it (a call's runtime, from the call row), so the reply need not wait for
   * the customer's message to be stored to start.
   */
  conversation?: ConversationRef;
  /** The conversation's last messages (`REPLY_HISTORY`) as the caller read them just before, oldest first. */
  history?: Message[];
  /** The contact's last `MAX_SUMMARIES` session summaries, newest first, as the caller read them just before. */
  summaries?: string[];
  /** A live turn (a call): its reply streamed, the turn cancellable, or speculative until its commit. */
  live?: LiveTurn;
  /**
   * Work to run beside the agent's reply message write, once the reply is known (a call records its activity):
   * `at` is when the reply was decided, `action` what a tool asked for.
   */
  besideReply?: (at: Date, action: TurnAction | null) => Promise<unknown>;
  /**
   * Told of each step of the turn as it happens (TurnRuntime makes them its events): each message once stored, each
   * tool call once recorded, the action a rule or a tool decides. The streamed text goes to `live.onDelta`.
   */
  observe?: (event: TurnProgress) => void;
}

/**
 * A customer's turn in any conversation (text, SMS and WhatsApp, a call): store it (opening a session if none is
 * active), run the rule engine (guards, then routing), then act on the rule or answer (ConversationReplyService).
 * The messages are written through the conversations module's ConversationMessagesService, which also writes what
 * the agent or the system says outside a turn (`speak`).
 */
@Injectable()
export class ConversationTurnsService {
  constructor(
    private readonly conversationsService: ConversationsService,
    private readonly agents: AgentContextReader,
    private readonly rules: RuleEngineService,
    private readonly replies: ConversationReplyService,
    private readonly writes: ConversationMessagesService,
  ) {}

  @Traced('turn', TURN_SPAN)
  @MetersUsage()
  async takeTurn(
    workspaceId: WorkspaceId,
    conversationId: string,
    content: string,
    options: TurnOptions = {},
  ): Promise<TurnResponse> {
    // A caller that read the agent (a call's runtime) skips the read ahead: the locked row is checked below. The
    // read ahead carries the agent configuration version, so an agent context kept under it is reused.
    const read = options.context
      ? null
      : await this.conversationsService.withConfigVersion(workspaceId, conversationId);
    const ahead = read?.conversation ?? null;
    if (ahead) this.writes.assertOpen(ahead);
    const context =
      options.context ?? (await this.agents.forTurn(workspaceId, ahead!.agentId!, read!.agentConfigVersion));
    const agent = context.agent;
    const timeoutMs = sessionTimeoutMs(context.evaluation);
    // A speculative turn writes nothing before its commit; everything below that only reads starts at once.
    const gate = options.live ? new TurnGate(options.live) : null;
    // What is known of the conversation before its row is locked. When it is, the reply's reads (history,
    // knowledge, memory), the rules and the model's request run beside the customer's message write: none of them
    // depends on it (the message is known, and its id is left out of the history read and added after).
    const known: ConversationRef | null = ahead ?? options.conversation ?? null;
    const id = newId();
    const reads =
      options.muted || !known
        ? null
        : this.replies.prefetch({
            workspaceId,
            conversation: known,
            agent,
            memorize: context.memorize,
            utterance: content,
            messageId: id,
            hasKnowledge: context.hasKnowledge,
            recent: options.history,
            summaries: options.summaries,
          });

    // 1. The customer's message and the session, in one transaction with its event.
    const draft: Draft = {
      direction: 'inbound',
      sender: 'customer',
      content,
      messageType: options.messageType ?? 'text',
    };
    const now = new Date();
    const store = () =>
      this.writes.storeCustomerMessage(workspaceId, conversationId, draft, now, timeoutMs, id);
    const writing = gate?.speculative ? gate.opened.then(store) : store();
    // Observed, the customer's message is told as soon as it is stored, before anything that waits for it.
    const observe = options.observe;
    const written = observe
      ? writing.then((w) => {
          observe({ type: 'message', message: MessageResponse.of(w.message) });
          return w;
        })
      : writing;
    written.catch(() => undefined); // awaited below, before anything is answered
    if (options.muted) {
      const { conversation, message } = await written;
      return {
        message: MessageResponse.of(message),
        reply: null,
        action: null,
        reply_unavailable_reason: 'The agent is muted',
        conversation: ConversationResponse.of(conversation),
      };
    }
    const ref = known ?? (await written).conversation;

    // 2. Rules first: a guard or routing rule acts instead of a reply (once the turn is committed).
    const decision = await this.rules.evaluate(
      { guard_rules: agent.guard_rules, routing_rules: agent.routing_rules },
      content,
      ref.channel,
      { customLlmUrl: agent.custom_llm_url },
    );
    if (decision.decision !== 'none' && decision.rule) {
      const { conversation, session, message } = await written;
      return this.act(conversation, session, message, decision, observe);
    }

    // 3. Otherwise the agent's reply, asked for while the customer's message commits; a write that fails (a
    // conversation closed meanwhile, a speculative turn cancelled) answers its error at once and mutes what the model
    // still streams.
    let refused = false;
    written.catch(() => (refused = true));
    const replying = this.replies.reply({
      workspaceId,
      conversation: ref,
      agent: options.customPrompt === undefined ? agent : { ...agent, custom_prompt: options.customPrompt },
      utterance: content,
      memorize: context.memorize,
      hasKnowledge: context.hasKnowledge ?? true,
      inbound: Object.assign(new Message(), { ...draft, id, workspaceId, conversationId, createdAt: now }),
      reads,
      onDelta: gate?.streams ? (delta) => !refused && gate.deliver(delta) : undefined,
      signal: gate?.signal,
      // Tools act, and their records are written, once the customer's message is stored.
      ready: written,
      recordTool: async (call, within) => {
        const record = await this.writes.speak(workspaceId, conversationId, JSON.stringify(call), {
          sender: 'system',
          messageType: 'tool',
          within,
        });
        if (observe) {
          const { intent: name, parameters, status, result, duration_ms } = call;
          observe({
            type: 'tool-call',
            name,
            parameters,
            status,
            result,
            duration_ms,
            message_uuid: record.id,
          });
          observe({ type: 'message', message: MessageResponse.of(record) });
        }
        return record;
      },
    });
    replying.catch(() => undefined); // awaited below, once the customer's message is stored
    const { conversation, session, message: inbound } = await written;
    const { text, reason, action } = await replying;
    if (action) observe?.({ type: 'action', action });
    const at = new Date();
    const [reply] = await Promise.all([
      text === null ? null : this.writes.storeAgentMessage(conversation, session, text),
      options.besideReply?.(at, action),
    ]);
    const replied = reply ? MessageResponse.of(reply) : null;
    if (replied) observe?.({ type: 'message', message: replied });
    return {
      message: MessageResponse.of(inbound),
      reply: replied,
      action,
      reply_unavailable_reason: reason,
      conversation: ConversationResponse.of(
        reply ? { ...conversation, lastMessageAt: reply.createdAt, agentId: reply.agentId } : conversation,
      ),
    };
  }

  private async act(
    conversation: Conversation,
    session: Session,
    inbound: Message,
    decision: RuleDecision,
    observe?: (event: TurnProgress) => void,
  ): Promise<TurnResponse> {
    const rule = decision.rule!;
    const action: TurnAction = {
      kind: decision.decision as 'guard' | 'routing',
      type: decision.action ?? 'forward',
      rule_uuid: rule.uuid,
      say: decision.say,
      destination: decision.destination,
    };
    observe?.({ type: 'action', action });
    const said = decision.say
      ? await this.writes.storeAgentMessage(conversation, session, decision.say)
      : null;
    const saidView = said ? MessageResponse.of(said) : null;
    if (saidView) observe?.({ type: 'message', message: saidView });
    let after = said ? { ...conversation, lastMessageAt: said.createdAt } : conversation;
    // On a call the call's runtime hangs up, and the call's end closes the conversation.
    if (
      action.kind === 'guard' &&
      action.type === 'end_conversation' &&
      !isVoiceChannel(conversation.channel)
    )
      after = await this.conversationsService.close(conversation.workspaceId, conversation.id);
    return {
      message: MessageResponse.of(inbound),
      reply: saidView,
      action,
      reply_unavailable_reason: null,
      conversation: ConversationResponse.of(after),
    };
  }
}
