import { Inject, Injectable, Logger } from '@nestjs/common';
import { UsageRecorder } from '@/modules/usage/usage-recorder';
import { LANGUAGE_MODEL, LanguageModel, LlmError } from '@/providers/llm/language-model.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AgentContextReader, ContactDirectory, MemorizedValue } from './agent-context';
import { extractionPrompt, memorizePlan, parseExtraction, STAGE_FIELD } from './memorize';
import { SessionsService } from './sessions.service';

/**
 * After a session: one model call extracts the contact fields the memorize settings mark `read_write`; each value
 * goes through its field's analyzer (written, proposed for approval, or skipped).
 */
@Injectable()
export class MemorizeService {
  private readonly logger = new Logger(MemorizeService.name);

  constructor(
    private readonly sessions: SessionsService,
    private readonly agents: AgentContextReader,
    private readonly contacts: ContactDirectory,
    @Inject(LANGUAGE_MODEL) private readonly llm: LanguageModel,
    private readonly usage: UsageRecorder,
  ) {}

  async afterSession(workspaceId: WorkspaceId, sessionId: string): Promise<Record<string, unknown> | null> {
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
    const asksStage = plan.writable.includes(STAGE_FIELD);
    const writable = plan.writable.filter((f) => f !== STAGE_FIELD);
    if (!writable.length && !asksStage) return null;
    // A field whose analyzer never updates is not asked for, nor a stage whose analyzer never moves a contact in.
    const [analyzers, allStages] = await Promise.all([
      this.contacts.analyzers(workspaceId, writable),
      asksStage ? this.contacts.stages(workspaceId) : [],
    ]);
    const fields = writable.filter((f) => analyzers.get(f)?.updateBehavior !== 'dont_update');
    const stages = allStages.filter((st) => st.updateBehavior !== 'dont_update');
    if (!fields.length && !stages.length) return null;
    const agent = await this.agents.agent(workspaceId, session.agentId).catch(() => null);
    if (!agent || !this.llm.isConfigured(agent.custom_llm_url)) return null;
    const transcript = await this.sessions.transcript(workspaceId, sessionId);
    if (!transcript.some((m) => m.sender === 'customer')) return null;
    let currentStage: string | null = null;
    if (stages.length) {
      const contact = await this.contacts.find(workspaceId, session.contactId);
      const stageId = contact?.fields.pipeline_stage_uuid;
      currentStage = allStages.find((st) => st.stageId === stageId)?.name ?? null;
    }
    let values: MemorizedValue[] = [];
    try {
      // The extraction's model call counts in the usage of the session's conversation.
      const answer = await this.usage.within(workspaceId, session.conversationId, () =>
        this.llm.chat(
          [
            { role: 'system', content: extractionPrompt(fields, analyzers, stages, currentStage) },
            {
              role: 'user',
              content: transcript
                .map((m) => `${m.sender === 'customer' ? 'Customer' : 'Agent'}: ${m.content}`)
                .join('\n'),
            },
          ],
          { json: true, baseUrl: agent.custom_llm_url },
        ),
      );
      values = parseExtraction(JSON.parse(answer.content), fields, stages);
    } catch (err) {
      const reason = err instanceof LlmError || err instanceof SyntaxError ? err.message : 'unexpected error';
      this.logger.warn({ workspaceId, sessionId, reason }, 'memorize skipped: no usable model answer');
    }
    // Marked first: a second run for the session (a retried job) finds it memorized and does nothing.
    if (!(await this.sessions.markMemorized(workspaceId, sessionId))) return null;
    if (!values.length) return {};
    const outcome = await this.contacts.memorize(
      workspaceId,
      { contactId: session.contactId, conversationId: session.conversationId, sessionId },
      values,
    );
    return outcome.written;
  }
}
