import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import type { ChatMessage } from '@/providers/llm/language-model.port';
import type { KnowledgeHit } from '@/modules/conversations/agent-context';
import type { Message } from '@/modules/conversations/message.entity';

export interface ReplyContext {
  agent: AgentResponse;
  channel: string;
  history: Pick<Message, 'sender' | 'content'>[];
  memory?: { contact?: Record<string, unknown>; summaries?: string[] };
  knowledge?: KnowledgeHit[];
}

const PROFILE: [keyof AgentResponse, string][] = [
  ['company_name', 'Company'],
  ['role', 'Your role'],
  ['objective', 'Objective'],
  ['tone', 'Tone'],
  ['behavior_guidelines', 'Behaviour'],
  ['company_service', 'What the company offers'],
  ['topic', 'Topic'],
  ['length_detail', 'Length of answers'],
  ['interest_of_product', 'Interest in the product'],
  ['negative_response', 'When the customer is not interested'],
  ['recommendations', 'Recommendations'],
  ['language', 'Language'],
  ['timezone', 'Time zone'],
];

function section(title: string, lines: string[]): string {
  return lines.length ? `## ${title}\n${lines.join('\n')}` : '';
}

/** The system prompt of a reply: the agent's profile, knowledge, memorized context and retrieved knowledge. */
export function buildSystemPrompt(ctx: ReplyContext): string {
  const a = ctx.agent;
  const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
  const parts = [
    `You are ${a.name}, an AI agent answering a customer over ${ctx.channel}.${text(a.description) ? ` ${text(a.description)}` : ''}`,
    section(
      'Profile',
      PROFILE.flatMap(([key, label]) => (text(a[key]) ? [`${label}: ${text(a[key])}`] : [])),
    ),
    text(a.custom_prompt) ? `## Instructions\n${text(a.custom_prompt)}` : '',
    section(
      'Guidelines',
      (a.guidelines ?? []).map((g) => `- ${g.content}`),
    ),
    section(
      'Notes',
      (a.notes ?? []).map((n) => `- ${n.content}`),
    ),
    section(
      'Procedures',
      (a.procedures ?? []).map(
        (p) =>
          `- ${p.name}${p.description ? ` (${p.description})` : ''}: ` +
          [...(p.steps ?? [])]
            .sort((x, y) => x.order - y.order)
            .map((s) => `${s.order}. ${s.description}`)
            .join(' '),
      ),
    ),
    section(
      'Examples',
      (a.training ?? []).map(
        (t) => `- Customer: ${t.content}${t.intent ? ` [${t.intent}]` : ''}\n  You: ${t.response}`,
      ),
    ),
    section('What you remember about this customer', [
      ...Object.entries(ctx.memory?.contact ?? {})
        .filter(([, v]) => v !== null && v !== undefined && v !== '')
        .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`),
      ...(ctx.memory?.summaries ?? []).map((s) => `Earlier conversation: ${s}`),
    ]),
    section(
      'Knowledge',
      (ctx.knowledge ?? []).map((k) => `- ${k.content} (source: ${k.source})`),
    ),
    'Answer the customer in one message. Use only the knowledge above for facts; say so when you do not know.',
  ];
  return parts.filter(Boolean).join('\n\n');
}

/** The messages of a reply: system prompt, then the conversation so far as user/assistant turns. */
export function buildReplyMessages(ctx: ReplyContext): ChatMessage[] {
  return [
    { role: 'system', content: buildSystemPrompt(ctx) },
    ...ctx.history
      .filter((m) => m.sender !== 'system')
      .map((m): ChatMessage => ({
        role: m.sender === 'customer' ? 'user' : 'assistant',
        content: m.content,
      })),
  ];
}
