import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { RuleEngineService } from '@/modules/agents/rules/rule-engine.service';
import type { RuleDecision } from '@/modules/agents/rules/rule-engine';
import { OutboxService } from '@/modules/events/outbox.service';
import { LANGUAGE_MODEL, LanguageModel, LlmError } from '@/providers/llm/language-model.port';
import { AgentContextReader, ContactDirectory, KnowledgeHit, KnowledgeLookup } from './agent-context';
import type { Conversation } from './conversation.entity';
import { ConversationsRepository, MessagesRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';
import { isVoiceChannel } from './channels';
import { ConversationResponse, MessageResponse, TurnAction, TurnResponse } from './dto/responses';
import { memorizePlan, pickFields } from './memorize';
import type { Message, MessageSender } from './message.entity';
import { buildReplyMessages } from './reply-prompt';
import type { Session } from './session.entity';
import { SessionsService } from './sessions.service';

const HISTORY = 20;

/** How a call shapes a turn: a muted agent does not answer; a call's prompt and context replace the agent's. */
export interface TurnOptions {
  /** Store the customer's message only: no rules, no reply. */
  muted?: boolean;
  /** The instructions in force instead of the agent's `custom_prompt` (a call's `prompt`, `about`, `variables`). */
  customPrompt?: string | null;
  /** `dtmf` for key presses. */
  messageType?: string;
  /** Streams the model's reply as it is generated (a call speaks it sentence by sentence). */
  onDelta?: (text: string) => void;
}
const MINUTE = 60_000;

/**
 * A customer's turn in a text conversation: store it (opening a session if none is active), run the rule engine
 * (guards, then routing), then act on the rule or answer through the language model.
 */
@Injectable()
export class ConversationTurnsService {
  private readonly logger = new Logger(ConversationTurnsService.name);

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly messages: MessagesRepository,
    private readonly conversationsService: ConversationsService,
    private readonly sessions: SessionsService,
    private readonly agents: AgentContextReader,
    private readonly contacts: ContactDirectory,
    private readonly knowledge: KnowledgeLookup,
    private readonly rules: RuleEngineService,
    private readonly outbox: OutboxService,
    private readonly unitOfWork: UnitOfWork,
    @Inject(LANGUAGE_MODEL) private readonly llm: LanguageModel,
  ) {}

  async takeTurn(
    workspaceId: string,
    conversationId: string,
    content: string,
    options: TurnOptions = {},
  ): Promise<TurnResponse> {
    const current = await this.conversationsService.get(workspaceId, conversationId);
    if (current.status === 'closed') throw AppException.conflict('The conversation is closed');
    if (!current.agentId) throw AppException.conflict('The agent of this conversation was deleted');
    const agent = await this.agents.agent(workspaceId, current.agentId);
    const { settings } = await this.agents.evaluation(workspaceId, current.agentId);
    const timeoutMs = Math.max(1000, Math.round(settings.sessionization.timeout_minutes * MINUTE));

    // 1. The customer's message and the session, in one transaction with its event.
    const { conversation, inbound, session, previousActivityMs } = await this.unitOfWork.run(async (m) => {
      const conv = await this.conversations.lock(workspaceId, conversationId, m);
      if (!conv) throw AppException.notFound('Conversation');
      if (conv.status === 'closed') throw AppException.conflict('The conversation is closed');
      const now = new Date();
      const touched = await this.sessions.touch(m, conv, now, timeoutMs);
      const message = await this.addMessage(
        m,
        conv,
        touched.session,
        'inbound',
        'customer',
        content,
        options.messageType,
      );
      return {
        conversation: conv,
        inbound: message,
        session: touched.session,
        previousActivityMs: touched.previousActivityMs,
      };
    });
    // A call's session ends with the call, never by idleness.
    if (!isVoiceChannel(conversation.channel))
      await this.sessions.scheduleTimeout(session, previousActivityMs);
    if (options.muted)
      return {
        message: MessageResponse.of(inbound),
        reply: null,
        action: null,
        reply_unavailable_reason: 'The agent is muted',
        conversation: ConversationResponse.of(conversation),
      };

    // 2. Rules first: a guard or routing rule acts instead of a reply.
    const decision = await this.rules.evaluate(
      { guard_rules: agent.guard_rules, routing_rules: agent.routing_rules },
      content,
      conversation.channel,
      { customLlmUrl: agent.custom_llm_url },
    );
    if (decision.decision !== 'none' && decision.rule)
      return this.act(conversation, session, inbound, decision);

    // 3. Otherwise the agent's reply.
    const { text, reason } = await this.reply(
      workspaceId,
      conversation,
      options.customPrompt === undefined ? agent : { ...agent, custom_prompt: options.customPrompt },
      options.onDelta,
    );
    const reply = text === null ? null : await this.storeAgentMessage(conversation, session, text);
    return {
      message: MessageResponse.of(inbound),
      reply: reply ? MessageResponse.of(reply) : null,
      action: null,
      reply_unavailable_reason: reason,
      conversation: ConversationResponse.of(
        reply ? { ...conversation, lastMessageAt: reply.createdAt } : conversation,
      ),
    };
  }

  private async act(
    conversation: Conversation,
    session: Session,
    inbound: Message,
    decision: RuleDecision,
  ): Promise<TurnResponse> {
    const rule = decision.rule!;
    const action: TurnAction = {
      kind: decision.decision as 'guard' | 'routing',
      type: decision.action ?? 'forward',
      rule_uuid: rule.uuid,
      say: decision.say,
      destination: decision.destination,
    };
    const said = decision.say ? await this.storeAgentMessage(conversation, session, decision.say) : null;
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
      reply: said ? MessageResponse.of(said) : null,
      action,
      reply_unavailable_reason: null,
      conversation: ConversationResponse.of(after),
    };
  }

  /** The reply text, or null with the reason (no model configured, or the model failed). */
  private async reply(
    workspaceId: string,
    conversation: Conversation,
    agent: AgentResponse,
    onDelta?: (text: string) => void,
  ): Promise<{ text: string | null; reason: string | null }> {
    if (!this.llm.isConfigured(agent.custom_llm_url))
      return {
        text: null,
        reason: "No language model is configured: set LLM_BASE_URL or the agent's custom_llm_url",
      };
    const history = await this.messages.recent(workspaceId, conversation.id, HISTORY);
    const [memory, knowledge] = await Promise.all([
      this.memory(workspaceId, conversation, agent.agent_uuid),
      this.knowledge
        .forTurns(
          workspaceId,
          agent.agent_uuid,
          history.filter((m) => m.sender === 'customer').map((m) => m.content),
        )
        .catch((err: Error): KnowledgeHit[] => {
          this.logger.warn(
            { err: err.message, conversationId: conversation.id },
            'knowledge search failed; replying without it',
          );
          return [];
        }),
    ]);
    try {
      const prompt = buildReplyMessages({ agent, channel: conversation.channel, history, memory, knowledge });
      const result =
        onDelta && this.llm.chatStream
          ? await this.llm.chatStream(prompt, { baseUrl: agent.custom_llm_url }, onDelta)
          : await this.llm.chat(prompt, { baseUrl: agent.custom_llm_url });
      const text = result.content.trim();
      return text
        ? { text, reason: null }
        : { text: null, reason: 'The language model answered with an empty reply' };
    } catch (err) {
      if (err instanceof LlmError) return { text: null, reason: `The language model failed: ${err.message}` };
      throw err;
    }
  }

  /** What memorize allows into the prompt: contact fields and recent session summaries with this contact. */
  private async memory(workspaceId: string, conversation: Conversation, agentId: string) {
    if (!conversation.contactId) return undefined;
    const plan = memorizePlan(await this.agents.memorize(workspaceId, agentId), conversation.channel);
    if (!plan.active) return undefined;
    const [contact, summaries] = await Promise.all([
      plan.readable.length ? this.contacts.find(workspaceId, conversation.contactId) : Promise.resolve(null),
      plan.summaries
        ? this.sessions.recentSummaries(workspaceId, conversation.contactId, plan.summaries)
        : Promise.resolve([]),
    ]);
    return { contact: contact ? pickFields(contact.fields, plan.readable) : undefined, summaries };
  }

  private async storeAgentMessage(
    conversation: Conversation,
    session: Session,
    content: string,
  ): Promise<Message> {
    return this.unitOfWork.run(async (m) => {
      const conv = await this.conversations.lock(conversation.workspaceId, conversation.id, m);
      if (!conv) throw AppException.notFound('Conversation');
      const current = await this.sessions.get(conversation.workspaceId, session.id, m);
      if (current.status === 'active') await this.sessions.countAgentMessage(m, current);
      return this.addMessage(m, conv, current, 'outbound', 'agent', content);
    });
  }

  /**
   * A message the agent (or the system, for a call's live actions) says outside a customer's turn, opening the
   * session when none is active, as a call's first message does.
   */
  async speak(
    workspaceId: string,
    conversationId: string,
    content: string,
    options: { sender?: 'agent' | 'system'; messageType?: string } = {},
  ): Promise<Message> {
    const current = await this.conversationsService.get(workspaceId, conversationId);
    const { settings } = await this.agents.evaluation(workspaceId, current.agentId);
    const timeoutMs = Math.max(1000, Math.round(settings.sessionization.timeout_minutes * MINUTE));
    return this.unitOfWork.run(async (m) => {
      const conv = await this.conversations.lock(workspaceId, conversationId, m);
      if (!conv) throw AppException.notFound('Conversation');
      if (conv.status === 'closed') throw AppException.conflict('The conversation is closed');
      const active = await this.sessions.touchForAgent(m, conv, new Date(), timeoutMs);
      const sender = options.sender ?? 'agent';
      return this.addMessage(m, conv, active, 'outbound', sender, content, options.messageType);
    });
  }

  private async addMessage(
    m: import('typeorm').EntityManager,
    conv: Conversation,
    session: Session,
    direction: 'inbound' | 'outbound',
    sender: MessageSender,
    content: string,
    messageType = 'text',
  ): Promise<Message> {
    const ws = conv.workspaceId;
    const message = this.messages.build(ws, {
      conversationId: conv.id,
      sessionId: session.id,
      agentId: conv.agentId,
      contactId: conv.contactId,
      channel: conv.channel,
      direction,
      sender,
      messageType,
      content,
    });
    await this.messages.save(ws, message, m);
    conv.lastMessageAt = message.createdAt;
    await this.conversations.save(ws, conv, m);
    await this.outbox.record(m, ws, [
      {
        type: 'conversation_update',
        agentId: conv.agentId,
        data: { message: MessageResponse.of(message), conversation_uuid: conv.id },
      },
    ]);
    return message;
  }
}
