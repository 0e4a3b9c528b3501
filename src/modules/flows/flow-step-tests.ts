import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { OutboxService } from '@/modules/events/outbox.service';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { FlowActions } from './actions/flow-actions';
import { stepError } from './actions/action';
import { TestStepDto } from './dto/flow.dto';
import { StepTestResponse } from './dto/flow.response';
import { FlowsService } from './flows.service';
import { render } from './steps/references';
import { matches } from './triggers/trigger-match';

/** The outbox event types each trigger reads. */
const EVENT_TYPES: Record<string, string[]> = {
  inbound_call: ['conversation_status'],
  call_ended: ['conversation_status'],
  call_voicemail: ['call_voicemail'],
  message_received: ['conversation_update'],
  session_evaluated: ['conversation_end_report'],
  contact_created: ['contact_created'],
  appointment_created: ['appointment_created'],
};

/** `POST /flow/{uuid}/steps/{stepUuid}/test`: trigger samples, action dry runs and live runs. */
@Injectable()
export class FlowStepTests {
  constructor(
    private readonly flows: FlowsService,
    private readonly outbox: OutboxService,
    private readonly conversations: ConversationsService,
    private readonly actions: FlowActions,
  ) {}

  async test(
    workspaceId: WorkspaceId,
    flowId: string,
    stepId: string,
    dto: TestStepDto,
  ): Promise<StepTestResponse> {
    const flow = await this.flows.get(workspaceId, flowId);
    const i = flow.steps.findIndex((s) => s.uuid === stepId);
    if (i < 0) throw AppException.notFound('Step');
    const step = flow.steps[i];
    if (step.kind === 'trigger') {
      if (dto.data) return { samples: [dto.data] };
      const key = step.trigger_key!;
      if (key === 'schedule') return { samples: [{ fired_at: new Date().toISOString() }] };
      const events = await this.outbox.recent(workspaceId, EVENT_TYPES[key] ?? [], 50);
      const samples: unknown[] = [];
      for (const e of events) {
        if (samples.length >= 5) break;
        const channelOf = async (id: string) =>
          (await this.conversations.get(workspaceId, id).catch(() => null))?.channel ?? null;
        if (await matches(key, step.config, e, channelOf)) samples.push(e.data);
      }
      if (!samples.length)
        throw new AppException('RESOURCE_NOT_FOUND', 'Matching event not found', { data: { samples } });
      return { samples };
    }
    const outputs = new Map<number, unknown>();
    const overrides: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(dto.input ?? {}))
      if (/^\d+$/.test(k)) outputs.set(Number(k), v);
      else overrides[k] = v;
    const input = render({ ...step.config, ...overrides }, outputs) as Record<string, unknown>;
    if (!dto.live) return { input };
    try {
      const output = await this.actions.run(step.action_key!, input, {
        workspaceId,
        executionId: flowId,
        stepNumber: i + 1,
        attempt: 3,
      });
      return { input, output };
    } catch (err) {
      const e = stepError(err);
      throw new AppException('CONFLICT', `The step failed: ${e.code}: ${e.message}`);
    }
  }
}
