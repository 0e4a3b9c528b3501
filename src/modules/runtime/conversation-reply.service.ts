import { Inject, Injectable, Logger } from '@nestjs/common';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { LANGUAGE_MODEL, LanguageModel, LlmError } from '@/providers/llm/language-model.port';
import {
  ContactDirectory,
  KnowledgeHit,
  KnowledgeLookup,
  MemorizeSettingsShape,
} from '@/modules/conversations/agent-context';
import type { ConversationRef } from '@/modules/conversations/conversation.entity';
import type { Message } from '@/modules/conversations/message.entity';
import { ConversationMessagesService } from '@/modules/conversations/conversation-messages.service';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import type { TurnAction } from '@/modules/conversations/dto/responses';
import { memorizePlan, pickFields } from '@/modules/conversations/memorize';
import { buildReplyMessages } from './reply-prompt';
import { SessionsService } from '@/modules/conversations/sessions.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ToolLoop } from './tools/tool-loop.service';
import type { TurnToolsContext } from './tools/turn-tools';

/** How many of the conversation's last messages a reply's prompt carries. */
export const REPLY_HISTORY = 20;

/** The agent's answer to a turn: its text, or null with the reason, and the action a tool asked for. */
export interface Reply {
  text: string | null;
  reason: string | null;
  action: TurnAction | null;
}

export interface ReplyInput {
  workspaceId: WorkspaceId;
  conversation: ConversationRef;
  /** The agent with the instructions in force (a call's replace its `custom_prompt`). */
  agent: AgentResponse;
  utterance: string;
  /** The agent's effective memorize settings, as the turn read them. */
  memorize: MemorizeSettingsShape;
  /** Streams the model's reply as it is generated. */
  onDelta?: (text: string) => void;
  /** Aborts the model's requests (a speculative turn cancelled): the reply rejects with LlmError `aborted`. */
  signal?: AbortSignal;
  /** Stores a tool's `system` message (the turn's message writer). */
  recordTool: TurnToolsContext['recordTool'];
  /** Settles once the turn's customer message is stored; tools act only after it. */
  ready?: Promise<unknown>;
  /** False when the agent has no knowledge passage: the search is skipped. */
  hasKnowledge?: boolean;
  /** The customer's message of this turn (as it is being stored: its id, content and time). */
  inbound?: Message;
  /** The history, knowledge and memory reads started before the customer's message was written (`prefetch`). */
  reads?: ReplyReads | null;
}

/** What memorize lets into the prompt. */
type Memory = { contact?: Record<string, unknown>; summaries: string[] } | undefined;

/** A turn's history (without its customer message), knowledge and memory, read while that message is written. */
export interface ReplyReads {
  history: Promise<Message[]>;
  knowledge: Promise<KnowledgeHit[]>;
  memory: Promise<Memory>;
}

/**
 * The reply step of a customer turn: the prompt (history, memorized contact fields and summaries, knowledge), the
 * language model with the agent's tools, streamed when asked; without a model, the intent the classifier fires.
 */
/** What `ConversationReplyService.prefetch` reads ahead of the customer's message being stored. */
export interface PrefetchInput {
  workspaceId: WorkspaceId;
  conversation: ConversationRef;
  agent: AgentResponse;
  memorize: MemorizeSettingsShape;
  utterance: string;
  /** The id the customer's message will be stored with, left out of the history read should it see it. */
  messageId: string;
  /** False when the agent has no knowledge: the search is skipped (default true). */
  hasKnowledge?: boolean;
  /** The last messages as the caller read them (a call's row read carries them). */
  recent?: Message[];
  /** The contact's last `MAX_SUMMARIES` summaries as the caller read them. */
  summaries?: string[];
}

@Injectable()
export class ConversationReplyService {
  private readonly logger = new Logger(ConversationReplyService.name);

  constructor(
    private readonly messages: ConversationMessagesService,
    private readonly conversationsService: ConversationsService,
    private readonly sessions: SessionsService,
    private readonly contacts: ContactDirectory,
    private readonly knowledge: KnowledgeLookup,
    private readonly unitOfWork: UnitOfWork,
    @Inject(LANGUAGE_MODEL) private readonly llm: LanguageModel,
    private readonly tools: ToolLoop,
  ) {}

  /**
   * Starts the reads a reply needs that do not depend on the turn's customer message being stored: the last
   * messages before it (`messageId`, the id it will be stored with, left out should the read see it), the
   * knowledge for the customer's turns so far and this one, and what memorize lets into the prompt. Null when no
   * model is configured (no reply reads them).
   */
  prefetch(input: PrefetchInput): ReplyReads | null {
    const { workspaceId, conversation, agent, memorize, utterance, messageId, recent, summaries } = input;
    const hasKnowledge = input.hasKnowledge ?? true;
    if (!this.llm.isConfigured(agent.custom_llm_url)) return null;
    const conversationId = conversation.id;
    const history = (
      recent ? Promise.resolve(recent) : this.messages.recent(workspaceId, conversationId, REPLY_HISTORY)
    ).then((rows) => rows.filter((m) => m.id !== messageId));
    const knowledge = history.then(
      (rows) =>
        this.searchKnowledge(workspaceId, conversationId, agent, hasKnowledge, [
          ...rows
            .slice(-(REPLY_HISTORY - 1))
            .filter((m) => m.sender === 'customer')
            .map((m) => m.content),
          utterance,
        ]),
      (): KnowledgeHit[] => [],
    );
    const memory = this.memory(workspaceId, conversation, memorize, summaries);
    // Awaited by the reply; the turn may end before it (a rule, a closed conversation).
    for (const read of [history, knowledge, memory]) read.catch(() => undefined);
    return { history, knowledge, memory };
  }

  private async searchKnowledge(
    workspaceId: WorkspaceId,
    conversationId: string,
    agent: AgentResponse,
    hasKnowledge: boolean,
    customerTurns: string[],
  ): Promise<KnowledgeHit[]> {
    if (!hasKnowledge) return [];
    return this.knowledge.forTurns(workspaceId, agent.agent_uuid, customerTurns).catch((err: Error) => {
      this.logger.warn({ err: err.message, conversationId }, 'knowledge search failed; replying without it');
      return [];
    });
  }

  /** The reply text, or null with the reason (no model configured, or the model failed). */
  async reply(input: ReplyInput): Promise<Reply> {
    const { workspaceId, conversation, agent, utterance, onDelta } = input;
    if (!this.llm.isConfigured(agent.custom_llm_url)) {
      await input.ready;
      const fired = await this.tools.withoutModel(utterance, this.toolContext(input));
      if (fired?.content) return { text: fired.content, reason: null, action: fired.action };
      return {
        text: null,
        reason: "No language model is configured: set LLM_BASE_URL or the agent's custom_llm_url",
        action: fired?.action ?? null,
      };
    }
    const memory = input.reads?.memory ?? this.memory(workspaceId, conversation, input.memorize);
    memory.catch(() => undefined); // awaited below; a failure must not go unhandled while history is read
    let history: Message[];
    let knowledge: KnowledgeHit[] | Promise<KnowledgeHit[]>;
    if (input.reads && input.inbound) {
      history = [...(await input.reads.history), input.inbound].sort(byTime).slice(-REPLY_HISTORY);
      knowledge = input.reads.knowledge;
    } else {
      history = await this.messages.recent(workspaceId, conversation.id, REPLY_HISTORY);
      knowledge = this.searchKnowledge(
        workspaceId,
        conversation.id,
        agent,
        input.hasKnowledge ?? true,
        history.filter((m) => m.sender === 'customer').map((m) => m.content),
      );
    }
    const [remembered, hits] = await Promise.all([memory, knowledge]);
    try {
      const messages = buildReplyMessages({
        agent,
        channel: conversation.channel,
        history,
        memory: remembered,
        knowledge: hits,
      });
      const result = await this.tools.chat(messages, this.toolContext(input), onDelta);
      const text = result.content?.trim();
      return text
        ? { text, reason: null, action: result.action }
        : { text: null, reason: 'The language model answered with an empty reply', action: result.action };
    } catch (err) {
      // An aborted request is the turn's cancellation, never a failed reply.
      if (err instanceof LlmError && err.kind !== 'aborted')
        return { text: null, reason: `The language model failed: ${err.message}`, action: null };
      throw err;
    }
  }

  /** What the agent's tools need of this turn: who speaks, and how to store a call and hand over. */
  private toolContext({ conversation, agent, recordTool, ready, signal }: ReplyInput): TurnToolsContext {
    const ws = conversation.workspaceId;
    return {
      workspaceId: ws,
      conversation,
      agent,
      recordTool,
      ready,
      signal,
      handOver: (agentId) =>
        this.unitOfWork.run((m) => this.conversationsService.handOver(m, ws, conversation.id, agentId)),
    };
  }

  /** What memorize allows into the prompt: contact fields and recent session summaries with this contact. */
  private async memory(
    workspaceId: WorkspaceId,
    conversation: ConversationRef,
    settings: MemorizeSettingsShape,
    given?: string[],
  ): Promise<Memory> {
    if (!conversation.contactId) return undefined;
    const plan = memorizePlan(settings, conversation.channel);
    if (!plan.active) return undefined;
    const [contact, summaries] = await Promise.all([
      plan.readable.length ? this.contacts.find(workspaceId, conversation.contactId) : Promise.resolve(null),
      !plan.summaries
        ? Promise.resolve([])
        : given
          ? Promise.resolve(given.slice(0, plan.summaries))
          : this.sessions.recentSummaries(workspaceId, conversation.contactId, plan.summaries),
    ]);
    return { contact: contact ? pickFields(contact.fields, plan.readable) : undefined, summaries };
  }
}

/** Messages in the order the history reads them: by time, then id. */
function byTime(a: Message, b: Message): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
