import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { NoAgentBound, SlotsFull } from '@/common/errors/domain-errors';
import { AgentContextReader } from '@/modules/conversations/agent-context';
import type { PhoneNumber } from '@/modules/phone-numbers/phone-number.entity';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { CallChannel } from '../call.entity';
import { recordsCall, voiceSetting, voiceText } from '../runtime/call-context';
import { CallLifecycle } from '../runtime/call-lifecycle.service';
import { CallPlacement, DEFAULT_MAX_DURATION, DEFAULT_RING_TIMEOUT } from './call-placement.service';
import type { SimulateInboundDto } from '../dto/requests';
import { CallResponse } from '../dto/responses';

/** Calls that reach a number: the provider's inbound hook and the sandbox's simulated caller. */
@Injectable()
export class InboundCalls {
  constructor(
    private readonly placement: CallPlacement,
    private readonly numbers: PhoneNumbersService,
    private readonly agents: AgentContextReader,
    private readonly lifecycle: CallLifecycle,
  ) {}

  /** `POST /calls/simulate-inbound`: a caller reaches a sandbox number, as Twilio's inbound webhook would. */
  async simulateInbound(workspaceId: WorkspaceId, dto: SimulateInboundDto): Promise<CallResponse> {
    const number = await this.numbers.findByNumber(workspaceId, dto.to);
    if (!number)
      throw AppException.invalid('to', 'to names no phone number of this workspace', 'VALIDATION_ERROR');
    if (number.provider !== 'sandbox') throw AppException.conflict('Simulations take sandbox numbers only');
    const call = await this.inbound(workspaceId, number, dto.from, dto.channel ?? 'phone');
    return call.status === 'ringing' ? this.lifecycle.move(workspaceId, call.uuid, 'in-progress') : call;
  }

  /**
   * An inbound call reaching a number: `ringing` for the bound agent, or stored `failed` (`agent_unavailable`),
   * or `busy` (`concurrency_limit`) when `storeRefusal` and no slot is free (else the 429 is thrown).
   * No agent bound: 409.
   */
  async inbound(
    workspaceId: WorkspaceId,
    number: PhoneNumber,
    from: string,
    channel: CallChannel,
    options: { storeRefusal?: boolean; unavailable?: { code: string; message: string } } = {},
  ): Promise<CallResponse> {
    this.numbers.assertTakesInbound(number);
    const agentId = await this.numbers.boundAgent(
      workspaceId,
      number.id,
      channel === 'phone' ? 'call' : 'whatsapp_call',
    );
    if (!agentId) throw new NoAgentBound(number.number, channel);
    const agent = await this.agents.agent(workspaceId, agentId);
    const common = {
      direction: 'Inbound' as const,
      channel,
      agent,
      number,
      contactId: null,
      customer: from,
      from,
      to: number.number,
      firstMessage: voiceText(agent, 'first_message'),
      prompt: null,
      about: null,
      variables: {},
      metadata: {},
      record: recordsCall(agent, number.provider),
      maxDurationSeconds: voiceSetting(agent, 'max_duration_seconds', 30, 7200, DEFAULT_MAX_DURATION),
      ringTimeoutSeconds: DEFAULT_RING_TIMEOUT,
    };
    if (agent.status === 'paused' || agent.status === 'completed')
      return this.placement.create(workspaceId, { ...common, status: 'failed' }, 'agent_unavailable');
    // The call reached a bound agent but the service cannot hold it (speech services missing): kept as failed.
    if (options.unavailable)
      return this.placement.create(
        workspaceId,
        { ...common, status: 'failed' },
        'provider_error',
        options.unavailable,
      );
    try {
      return await this.placement.create(workspaceId, { ...common, status: 'ringing' });
    } catch (err) {
      if (!options.storeRefusal || !(err instanceof SlotsFull)) throw err;
      return this.placement.create(workspaceId, { ...common, status: 'busy' }, 'concurrency_limit');
    }
  }
}
