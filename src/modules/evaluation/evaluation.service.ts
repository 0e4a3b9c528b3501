import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { pageOf, Page, skipTake } from '@/common/http/pagination';
import { Metrics } from '@/common/metrics/metrics';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { AgentContextReader, EvaluationFeature } from '@/modules/conversations/agent-context';
import { isVoiceChannel } from '@/modules/conversations/channels';
import { MessageResponse, SessionResponse } from '@/modules/conversations/dto/responses';
import type { Session } from '@/modules/conversations/session.entity';
import { SessionsService } from '@/modules/conversations/sessions.service';
import { OutboxService } from '@/modules/events/outbox.service';
import { UsageRecorder } from '@/modules/usage/usage-recorder';
import { LANGUAGE_MODEL, LanguageModel, LlmError } from '@/providers/llm/language-model.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ListEvaluationsQuery } from './dto/requests';
import { EvaluationRecordResponse } from './dto/responses';
import { buildFeatureMessages, parseFeatureAnswer } from './evaluation-prompt';
import { EvaluationRecord } from './evaluation-record.entity';
import { EvaluationRepository } from './evaluation.repository';

type Outcome = Pick<EvaluationRecord, 'status' | 'value' | 'score' | 'label' | 'reason'>;

const SUMMARY = 'summary_prompt';

/**
 * Automatic evaluation at session end: each enabled feature of the channel's block is one model call over the
 * transcript and one stored record; nothing runs when the settings are inactive. Never on demand.
 */
@Injectable()
export class EvaluationService {
  private readonly logger = new Logger(EvaluationService.name);

  constructor(
    private readonly records: EvaluationRepository,
    private readonly sessions: SessionsService,
    private readonly agents: AgentContextReader,
    private readonly outbox: OutboxService,
    private readonly unitOfWork: UnitOfWork,
    @Inject(LANGUAGE_MODEL) private readonly llm: LanguageModel,
    private readonly metrics: Metrics,
    private readonly usage: UsageRecorder,
  ) {}

  /** Runs the evaluation of an ended session; safe to run twice (records and the report are written once). */
  async evaluateSession(
    workspaceId: WorkspaceId,
    sessionId: string,
  ): Promise<{ records: number; skipped: boolean }> {
    const session = await this.sessions.get(workspaceId, sessionId).catch(() => null);
    if (!session || session.status !== 'ended' || session.endReportedAt) return { records: 0, skipped: true };
    const { settings, version } = await this.agents.evaluation(workspaceId, session.agentId);
    const transcript = await this.sessions.transcript(workspaceId, sessionId);

    let summary: string | null = null;
    if (settings.is_active) {
      const block = isVoiceChannel(session.channel) ? settings.voice : settings.text;
      const agent = session.agentId
        ? await this.agents.agent(workspaceId, session.agentId).catch(() => null)
        : null;
      const existing = new Set((await this.records.forSession(workspaceId, sessionId)).map((r) => r.feature));
      const features = Object.entries(block).filter(([name, f]) => f.enabled && !existing.has(name));
      await Promise.all(
        features.map(async ([name, f]) => {
          // Each feature's model call counts in the usage of the session's conversation.
          const outcome = await this.usage.within(workspaceId, session.conversationId, () =>
            this.runFeature(name, f, transcript, settings.report_language, agent?.custom_llm_url ?? null),
          );
          this.metrics.evaluations.inc({ type: f.type, status: outcome.status });
          await this.records.insertOnce(workspaceId, {
            sessionId,
            conversationId: session.conversationId,
            contactId: session.contactId,
            agentId: session.agentId,
            channel: session.channel,
            feature: name,
            type: f.type,
            settingsVersion: version,
            ...outcome,
          });
        }),
      );
      const summaryRecord = (await this.records.forSession(workspaceId, sessionId)).find(
        (r) => r.feature === SUMMARY,
      );
      summary =
        summaryRecord?.status === 'completed' && typeof summaryRecord.value === 'string'
          ? summaryRecord.value
          : null;
    }

    const stored = settings.is_active ? await this.records.forSession(workspaceId, sessionId) : [];
    await this.unitOfWork.run(async (m) => {
      const first = await this.sessions.markReported(m, workspaceId, sessionId, {
        evaluated: settings.is_active,
        summary,
      });
      if (!first) return;
      const after: Pick<Session, keyof Session> = {
        ...session,
        summary: summary ?? session.summary,
        evaluatedAt: settings.is_active ? new Date() : null,
      };
      const evaluation = stored.map((r) => EvaluationRecordResponse.of(r));
      await this.outbox.record(m, workspaceId, [
        ...(stored.length
          ? [
              {
                type: isVoiceChannel(session.channel)
                  ? ('voice_evaluation' as const)
                  : ('text_evaluation' as const),
                agentId: session.agentId,
                data: { session_uuid: sessionId, records: evaluation },
              },
            ]
          : []),
        {
          type: 'conversation_end_report' as const,
          agentId: session.agentId,
          data: {
            session: SessionResponse.of(after),
            transcript: transcript.map((t) => MessageResponse.of(t)),
            summary: after.summary,
            evaluation,
          },
        },
      ]);
    });
    return { records: stored.length, skipped: false };
  }

  private async runFeature(
    name: string,
    f: EvaluationFeature,
    transcript: { sender: string; content: string }[],
    language: string,
    customLlmUrl: string | null,
  ): Promise<Outcome> {
    const empty = { value: null, score: null, label: null };
    if (!this.llm.isConfigured(customLlmUrl))
      return { ...empty, status: 'skipped', reason: 'No language model is configured (LLM_BASE_URL)' };
    try {
      const answer = await this.llm.chat(buildFeatureMessages(name, f, transcript, language), {
        json: true,
        baseUrl: customLlmUrl,
      });
      const parsed = parseFeatureAnswer(answer.content, f);
      if ('error' in parsed)
        return { ...empty, status: 'failed', reason: `Invalid model answer: ${parsed.error}` };
      return {
        status: 'completed',
        value: parsed.value,
        score: parsed.score,
        label: parsed.label,
        reason: parsed.reason,
      };
    } catch (err) {
      if (err instanceof LlmError)
        return { ...empty, status: 'failed', reason: `The language model failed: ${err.message}` };
      this.logger.error({ err, feature: name }, 'evaluation feature failed unexpectedly');
      return { ...empty, status: 'failed', reason: 'Unexpected error while evaluating' };
    }
  }

  async list(workspaceId: WorkspaceId, q: ListEvaluationsQuery): Promise<Page<EvaluationRecordResponse>> {
    const [rows, total] = await this.records.page(
      workspaceId,
      {
        agentId: q.agent_uuid,
        sessionId: q.session_uuid,
        feature: q.feature,
        from: q.from ? new Date(q.from) : undefined,
        to: q.to ? new Date(q.to) : undefined,
      },
      skipTake(q),
    );
    return pageOf(
      rows.map((r) => EvaluationRecordResponse.of(r)),
      total,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<EvaluationRecordResponse> {
    const record = await this.records.findById(workspaceId, id);
    if (!record) throw AppException.notFound('Evaluation');
    return EvaluationRecordResponse.of(record);
  }

  /** A session's evaluation: its records and summary (404 for an unknown session). */
  async forSession(workspaceId: WorkspaceId, sessionId: string) {
    const session = await this.sessions.get(workspaceId, sessionId);
    const records = await this.records.forSession(workspaceId, sessionId);
    return {
      session_uuid: session.id,
      status: session.evaluatedAt
        ? 'evaluated'
        : session.endReportedAt
          ? 'not_evaluated'
          : session.status === 'ended'
            ? 'pending'
            : 'session_active',
      evaluated_at: session.evaluatedAt?.toISOString() ?? null,
      summary: session.summary,
      records: records.map((r) => EvaluationRecordResponse.of(r)),
    };
  }
}
