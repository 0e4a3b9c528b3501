import { Injectable } from '@nestjs/common';
import { OutboxService } from '@/modules/events/outbox.service';
import { ActionLog } from '@/modules/logs/action-log.service';
import { reportUsage } from '@/providers/usage-report';
import { capResult } from './result-size';
import type { IntentTool } from './tool-definitions';
import type { TurnToolsContext } from './turn-tools';

export type IntentCallStatus = 'succeeded' | 'failed' | 'timeout' | 'invalid_parameters' | 'skipped_limit';

/**
 * Every intent call leaves three records, in one transaction: a `system` message of type `tool` in the
 * conversation, an `intent_call` event (agent and workspace webhooks) and an action-log row.
 */
@Injectable()
export class IntentCallRecorder {
  constructor(
    private readonly outbox: OutboxService,
    private readonly actionLog: ActionLog,
  ) {}

  /** Answers the result as stored and given to the model (at most 8 KB of JSON). */
  async record(
    ctx: TurnToolsContext,
    tool: IntentTool,
    parameters: Record<string, unknown>,
    status: IntentCallStatus,
    rawResult: unknown,
    durationMs: number,
    error: string | null,
    request?: Record<string, unknown>,
  ): Promise<unknown> {
    if (status !== 'skipped_limit') reportUsage({ toolCalls: 1 });
    const result = capResult(rawResult);
    // A built-in tool has no stored intent: `intent_uuid` is null.
    const intentId = tool.builtin ? null : tool.intent.intent_uuid;
    const intent = { intent_uuid: intentId, key: tool.intent.key, name: tool.intent.name };
    const ws = ctx.workspaceId;
    const conversation = ctx.conversation;
    const call = { intent: tool.intent.key, parameters, status, result, duration_ms: durationMs };
    await ctx.recordTool(call, async (m, message) => {
      await this.outbox.record(m, ws, [
        {
          type: 'intent_call',
          agentId: ctx.agent.agent_uuid,
          data: {
            intent,
            parameters,
            result,
            status,
            duration_ms: durationMs,
            conversation_uuid: conversation.id,
            message_uuid: message.id,
          },
        },
      ]);
      await this.actionLog.record(
        ws,
        {
          type: 'intent',
          name: tool.intent.key,
          status,
          channel: conversation.channel,
          durationMs,
          agentId: ctx.agent.agent_uuid,
          contactId: conversation.contactId,
          subjectId: conversation.id,
          request: {
            intent_uuid: intentId,
            action: tool.builtin ? 'builtin' : (tool.action?.type ?? 'intent_webhook'),
            parameters,
            ...request,
          },
          response: result,
          error,
        },
        m,
      );
    });
    return result;
  }
}
