import { Injectable, Logger } from '@nestjs/common';
import { Metrics } from '@/common/metrics/metrics';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { MessagesRepository } from './messages.repository';
import { LATENCY_FIELDS, MessageLatency } from './message.entity';

/** A step's time as stored: whole milliseconds, or null when it is absent, negative or not a finite number. */
function stepMs(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
}

/** The five steps of a turn's timing, each whole milliseconds or null; other keys are dropped. */
export function turnLatency(given: Partial<Record<keyof MessageLatency, number | null>>): MessageLatency {
  return Object.fromEntries(LATENCY_FIELDS.map((f) => [f, stepMs(given[f])])) as unknown as MessageLatency;
}

/**
 * The timing of voice turns: stored on the agent's reply and observed in the per-agent latency histograms. Called
 * by the audio path once a reply has started playing, without waiting: it never throws nor rejects.
 */
@Injectable()
export class TurnLatencyService {
  private readonly logger = new Logger(TurnLatencyService.name);

  constructor(
    private readonly messages: MessagesRepository,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Stores `latency` on the agent reply `messageId` of a call and observes the reply's agent's histograms. Answers
   * whether it was stored: false (logged) for a message that is not an agent's reply on a call, or a database error.
   */
  async record(
    workspaceId: WorkspaceId,
    messageId: string,
    latency: Partial<Record<keyof MessageLatency, number | null>>,
  ): Promise<boolean> {
    try {
      const timing = turnLatency(latency);
      const reply = await this.messages.setLatency(workspaceId, messageId, timing);
      if (!reply) {
        this.logger.warn({ workspaceId, messageId }, 'turn latency not stored: no agent reply on a call');
        return false;
      }
      if (reply.agentId) this.metrics.observeVoiceTurn(reply.agentId, timing);
      return true;
    } catch (err) {
      this.logger.warn({ workspaceId, messageId, err: (err as Error).message }, 'turn latency not stored');
      return false;
    }
  }
}
