import { Inject, Injectable, Logger } from '@nestjs/common';
import { LANGUAGE_MODEL, LanguageModel, LlmError } from '@/providers/llm/language-model.port';
import { AgentContextReader, ContactDirectory } from './agent-context';
import { memorizePlan } from './memorize';
import { SessionsService } from './sessions.service';

/** After a session: one model call may update the contact fields the memorize settings mark `read_write`. */
@Injectable()
export class MemorizeService {
  private readonly logger = new Logger(MemorizeService.name);

  constructor(
    private readonly sessions: SessionsService,
    private readonly agents: AgentContextReader,
    private readonly contacts: ContactDirectory,
    @Inject(LANGUAGE_MODEL) private readonly llm: LanguageModel,
  ) {}

  async afterSession(workspaceId: string, sessionId: string): Promise<Record<string, unknown> | null> {
    const session = await this.sessions.get(workspaceId, sessionId).catch(() => null);
    if (
      !session ||
      session.status !== 'ended' ||
      session.memorizedAt ||
      !session.contactId ||
      !session.agentId
    )
      return null;
    const plan = memorizePlan(await this.agents.memorize(workspaceId, session.agentId), session.channel);
    if (!plan.writable.length) return null;
    const agent = await this.agents.agent(workspaceId, session.agentId).catch(() => null);
    if (!agent || !this.llm.isConfigured(agent.custom_llm_url)) return null;
    const transcript = await this.sessions.transcript(workspaceId, sessionId);
    if (!transcript.some((m) => m.sender === 'customer')) return null;
    let changes: Record<string, unknown> = {};
    try {
      const answer = await this.llm.chat(
        [
          {
            role: 'system',
            content:
              'From the conversation, extract what the customer said about themselves. Answer one JSON object with ' +
              `only these keys, and only those the customer clearly stated: ${plan.writable.join(', ')}. Values are strings.`,
          },
          {
            role: 'user',
            content: transcript
              .map((m) => `${m.sender === 'customer' ? 'Customer' : 'Agent'}: ${m.content}`)
              .join('\n'),
          },
        ],
        { json: true, baseUrl: agent.custom_llm_url },
      );
      const parsed: unknown = JSON.parse(answer.content);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        changes = Object.fromEntries(
          Object.entries(parsed as Record<string, unknown>).filter(
            ([k, v]) => plan.writable.includes(k) && typeof v === 'string' && v.trim() !== '',
          ),
        );
    } catch (err) {
      const reason = err instanceof LlmError || err instanceof SyntaxError ? err.message : 'unexpected error';
      this.logger.warn({ workspaceId, sessionId, reason }, 'memorize skipped: no usable model answer');
    }
    if (!(await this.sessions.markMemorized(workspaceId, sessionId))) return null;
    if (Object.keys(changes).length) await this.contacts.update(workspaceId, session.contactId, changes);
    return changes;
  }
}
