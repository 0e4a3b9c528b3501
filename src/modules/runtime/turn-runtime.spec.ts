import type { RuleDecision } from '@/modules/agents/rules/rule-engine';
import type { RuleEngineService } from '@/modules/agents/rules/rule-engine.service';
import type { AgentContextReader, TurnContext } from '@/modules/conversations/agent-context';
import { Conversation } from '@/modules/conversations/conversation.entity';
import type {
  ConversationMessagesService,
  Written,
} from '@/modules/conversations/conversation-messages.service';
import type { ConversationsService } from '@/modules/conversations/conversations.service';
import { workspaceIdOf } from '@/common/auth/workspace-id';
import { Message } from '@/modules/conversations/message.entity';
import { Session } from '@/modules/conversations/session.entity';
import type { ConversationReplyService, Reply, ReplyInput } from './conversation-reply.service';
import { ConversationTurnsService } from './conversation-turns.service';
import { TurnCancelled } from './turn-gate';
import { EventQueue, outcomeOf, TurnEvent } from './turn-events';
import { TakeTurnOptions, TurnRuntime } from './turn-runtime.service';

const WS = workspaceIdOf('ws-1');
const CONV = 'conv-1';
const at = new Date('2025-01-01T00:00:00Z');

const conversation = Object.assign(new Conversation(), {
  id: CONV,
  workspaceId: WS,
  agentId: 'agent-1',
  contactId: null,
  channel: 'chat',
  status: 'active',
  source: 'live',
  phone: null,
  lastMessageAt: null,
  closedAt: null,
  createdAt: at,
  updatedAt: at,
});
const session = Object.assign(new Session(), { id: 'session-1', workspaceId: WS, conversationId: CONV });
const message = (id: string, sender: Message['sender'], content: string, messageType = 'text') =>
  Object.assign(new Message(), {
    id,
    workspaceId: WS,
    conversationId: CONV,
    sessionId: session.id,
    sender,
    direction: sender === 'customer' ? 'inbound' : 'outbound',
    messageType,
    content,
    interrupted: false,
    latency: null,
    createdAt: at,
  });
const context = {
  agent: { agent_uuid: 'agent-1', guard_rules: [], routing_rules: [], custom_llm_url: null },
  evaluation: { settings: { sessionization: { timeout_minutes: 10 } }, version: 1 },
  memorize: {},
  version: null,
} as unknown as TurnContext;

/** What the test's stand-ins for the pipeline's steps did, and how the reply behaves. */
interface Stage {
  stored: string[];
  decision: RuleDecision;
  /** The model's stand-in: called with the reply's input, answers the reply. */
  reply: (input: ReplyInput) => Promise<Reply>;
}

function runtimeWith(stage: Stage): TurnRuntime {
  const writes = {
    assertOpen: () => undefined,
    storeCustomerMessage: async (
      _ws: string,
      _c: string,
      draft: { content: string },
      _now: Date,
      _t: number,
      id: string,
    ) => {
      stage.stored.push(`customer: ${draft.content}`);
      return {
        conversation,
        session,
        message: message(id, 'customer', draft.content),
        previousActivityMs: null,
      } as Written;
    },
    storeAgentMessage: async (_c: Conversation, _s: Session, content: string) => {
      stage.stored.push(`agent: ${content}`);
      return message('reply-1', 'agent', content);
    },
    speak: async (_ws: string, _c: string, content: string) => {
      stage.stored.push(`tool: ${content}`);
      return message('tool-1', 'system', content, 'tool');
    },
  } as unknown as ConversationMessagesService;
  const conversations = {
    withConfigVersion: async () => ({ conversation, agentConfigVersion: null }),
    // A text conversation's guard `end_conversation` closes it.
    close: async () => ({ ...conversation, status: 'closed' }),
  } as unknown as ConversationsService;
  const agents = { forTurn: async () => context } as unknown as AgentContextReader;
  const rules = { evaluate: async () => stage.decision } as unknown as RuleEngineService;
  const replies = {
    prefetch: () => null,
    reply: (input: ReplyInput) => stage.reply(input),
  } as unknown as ConversationReplyService;
  return new TurnRuntime(new ConversationTurnsService(conversations, agents, rules, replies, writes));
}

const NONE: RuleDecision = { decision: 'none' } as RuleDecision;
const TOOL_RECORD = {
  intent: 'order_status',
  parameters: { order: '42' },
  status: 'succeeded',
  result: { state: 'shipped' },
  duration_ms: 12,
};

/** A reply that streams two pieces once the customer's message is stored, records a tool call, and answers. */
const streamingReply = async (input: ReplyInput): Promise<Reply> => {
  await input.ready;
  input.onDelta?.('Your order ');
  input.onDelta?.('has shipped.');
  await input.recordTool(TOOL_RECORD, async () => undefined);
  return { text: 'Your order has shipped.', reason: null, action: null };
};

/** The events read to the end (or to the failure, answered as `error`). */
async function read(events: AsyncIterable<TurnEvent>): Promise<{ events: TurnEvent[]; error?: unknown }> {
  const seen: TurnEvent[] = [];
  try {
    for await (const e of events) seen.push(e);
    return { events: seen };
  } catch (error) {
    return { events: seen, error };
  }
}

/** An event as a short line: its type and what tells it apart. */
const line = (e: TurnEvent): string => {
  switch (e.type) {
    case 'text':
      return `text ${e.delta}`;
    case 'message':
      return `message ${e.message.sender} ${e.message.content}`;
    case 'tool-call':
      return `tool-call ${e.name} ${e.status} ${e.message_uuid}`;
    case 'action':
      return `action ${e.action.kind} ${e.action.type}`;
    case 'end':
      return `end ${e.turn.reply?.content ?? null}`;
  }
};

describe('TurnRuntime.takeTurn: a turn as a stream of events', () => {
  const take = (stage: Stage, options?: TakeTurnOptions, content = 'Where is my order?') =>
    runtimeWith(stage).takeTurn({ workspaceId: WS, conversationId: CONV, content }, options);

  it('reports the customer message, the streamed text, the tool call and its record, the reply, then the end', async () => {
    const stage: Stage = { stored: [], decision: NONE, reply: streamingReply };
    const { events, error } = await read(take(stage, { deltas: true }));
    expect(error).toBeUndefined();
    expect(events.map(line)).toEqual([
      'message customer Where is my order?',
      'text Your order ',
      'text has shipped.',
      'tool-call order_status succeeded tool-1',
      `message system ${JSON.stringify(TOOL_RECORD)}`,
      'message agent Your order has shipped.',
      'end Your order has shipped.',
    ]);
    const toolCall = events.find((e) => e.type === 'tool-call');
    expect(toolCall).toMatchObject({
      parameters: { order: '42' },
      result: { state: 'shipped' },
      duration_ms: 12,
    });
    const end = events.at(-1) as TurnEvent & { type: 'end' };
    expect(end.turn.message.content).toBe('Where is my order?');
    expect(end.turn.reply?.uuid).toBe('reply-1');
  });

  it('without deltas reports no text: the reply comes whole in its message and the end', async () => {
    const stage: Stage = { stored: [], decision: NONE, reply: streamingReply };
    const { events } = await read(take(stage));
    expect(events.map((e) => e.type)).toEqual(['message', 'tool-call', 'message', 'message', 'end']);
  });

  it("a rule that fires: the customer's message, the action, the rule's words, the end", async () => {
    const decision = {
      decision: 'guard',
      action: 'end_conversation',
      rule: { uuid: 'rule-1' },
      say: 'Goodbye.',
      destination: null,
    } as unknown as RuleDecision;
    const stage: Stage = { stored: [], decision, reply: streamingReply };
    const { events } = await read(take(stage, { deltas: true }, 'stop'));
    expect(events.map(line)).toEqual([
      'message customer stop',
      'action guard end_conversation',
      'message agent Goodbye.',
      'end Goodbye.',
    ]);
    expect(stage.stored).toEqual(['customer: stop', 'agent: Goodbye.']);
    expect((events.at(-1) as TurnEvent & { type: 'end' }).turn.conversation.status).toBe('closed');
  });

  it('a speculative turn holds everything until its commit', async () => {
    let commit!: () => void;
    const committed = new Promise<void>((r) => (commit = r));
    let written = false;
    const stage: Stage = {
      stored: [],
      decision: NONE,
      // The model answers before the commit; the stream shows nothing of it until then.
      reply: async (input) => {
        input.onDelta?.('Hello.');
        await input.ready;
        written = true;
        return { text: 'Hello.', reason: null, action: null };
      },
    };
    const events = take(stage, { commit: committed, deltas: true }, 'Hi');
    const first = events.next();
    const early = await Promise.race([
      first.then(() => 'an event'),
      new Promise((r) => setTimeout(() => r('nothing'), 20)),
    ]);
    expect(early).toBe('nothing');
    expect(stage.stored).toEqual([]);
    expect(written).toBe(false);
    commit();
    const head = (await first).value as TurnEvent;
    const rest = await read(events);
    expect([head, ...rest.events].map(line)).toEqual([
      'text Hello.',
      'message customer Hi',
      'message agent Hello.',
      'end Hello.',
    ]);
  });

  it('aborted before its commit: nothing stored, the model request aborted, the stream ends with TurnCancelled', async () => {
    const controller = new AbortController();
    let modelSignal: AbortSignal | undefined;
    const stage: Stage = {
      stored: [],
      decision: NONE,
      reply: async (input) => {
        modelSignal = input.signal;
        input.onDelta?.('Hel');
        // The model's request ends when its signal aborts.
        await new Promise((_, reject) =>
          input.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
        );
        return { text: null, reason: null, action: null };
      },
    };
    const events = take(stage, {
      commit: new Promise<void>(() => undefined),
      signal: controller.signal,
      deltas: true,
    });
    await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const { events: seen, error } = await read(events);
    expect(error).toBeInstanceOf(TurnCancelled);
    expect(seen).toEqual([]);
    expect(stage.stored).toEqual([]);
    expect(modelSignal?.aborted).toBe(true);
  });

  it('aborted after its commit: the text stops, the turn ends as usual with its reply stored', async () => {
    const controller = new AbortController();
    const stage: Stage = {
      stored: [],
      decision: NONE,
      reply: async (input) => {
        await input.ready;
        input.onDelta?.('One ');
        controller.abort();
        input.onDelta?.('two.');
        return { text: 'One two.', reason: null, action: null };
      },
    };
    const { events, error } = await read(take(stage, { signal: controller.signal, deltas: true }, 'Count'));
    expect(error).toBeUndefined();
    expect(events.map(line)).toEqual([
      'message customer Count',
      'text One ',
      'message agent One two.',
      'end One two.',
    ]);
  });

  it('outcomeOf reads the events to the end and answers the outcome', async () => {
    const stage: Stage = { stored: [], decision: NONE, reply: streamingReply };
    const turn = await outcomeOf(take(stage));
    expect(turn.reply?.content).toBe('Your order has shipped.');
    expect(turn.action).toBeNull();
  });
});

describe('EventQueue: the events of one turn for one reader', () => {
  it('answers the events pushed before a failure, then the failure', async () => {
    const queue = new EventQueue<number>();
    queue.push(1);
    queue.push(2);
    queue.fail(new Error('closed meanwhile'));
    queue.push(3);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const n of queue) seen.push(n);
      })(),
    ).rejects.toThrow('closed meanwhile');
    expect(seen).toEqual([1, 2]);
  });

  it('a reader waiting gets the next event as it is pushed; one that stops drops what comes after', async () => {
    const queue = new EventQueue<number>();
    const next = queue.next();
    queue.push(1);
    await expect(next).resolves.toEqual({ value: 1, done: false });
    queue.push(2);
    queue.push(3);
    for await (const n of queue) {
      expect(n).toBe(2);
      break;
    }
    queue.push(4);
    queue.close();
    await expect(queue.next()).resolves.toEqual({ value: undefined, done: true });
  });
});
