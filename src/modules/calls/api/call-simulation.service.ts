import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { CallEnded, WrongCallStatus } from '@/common/errors/domain-errors';
import { outcomeOf } from '@/modules/runtime/public';
import type { CallStatus } from '@/providers/telephony/telephony.port';
import { CallLifecycle } from '../runtime/call-lifecycle.service';
import { CallRuntime, CallTurnResponse, FOR_TURN } from '../runtime/call-runtime.service';
import { EndReason, isEnded } from '../runtime/call-states';
import { CallsRepository } from '../calls.repository';
import { DTMF_KEYS } from '@/common/telephony/dtmf';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { pressedKeys } from '../runtime/dtmf';
import type { SimulateCallDto } from '../dto/requests';
import type { CallResponse } from '../dto/responses';

export type SimulationResponse = Partial<CallTurnResponse> & { call: CallResponse };

const OUTCOMES: Record<'answer' | 'busy' | 'no_answer' | 'fail', [CallStatus, EndReason | undefined]> = {
  answer: ['in-progress', undefined],
  busy: ['busy', 'busy'],
  no_answer: ['no-answer', 'no_answer'],
  fail: ['failed', 'provider_error'],
};

/** `POST /calls/{uuid}/simulate`: the sandbox's far end, acting through the same paths as a provider would. */
@Injectable()
export class CallSimulation {
  constructor(
    private readonly calls: CallsRepository,
    private readonly lifecycle: CallLifecycle,
    private readonly runtime: CallRuntime,
  ) {}

  async simulate(
    workspaceId: WorkspaceId,
    callId: string,
    dto: SimulateCallDto,
  ): Promise<SimulationResponse> {
    // A turn's prompt needs the last messages: read with the call row.
    const turn = dto.action === 'say' || dto.action === 'dtmf';
    const loaded = await this.calls.findWithAgentVersion(workspaceId, callId, turn ? FOR_TURN : {});
    if (!loaded) throw AppException.notFound('Call');
    const call = loaded.call;
    if (call.provider !== 'sandbox') throw AppException.conflict('Simulations take sandbox calls only');
    if (isEnded(call.status)) throw new CallEnded(call.id);
    switch (dto.action) {
      case 'say':
        if (!dto.text) throw AppException.invalid('text', 'text should not be empty', 'VALIDATION_ERROR');
        return outcomeOf(this.runtime.customerTurn(workspaceId, callId, dto.text, 'text', loaded));
      case 'dtmf': {
        const digits = dto.digits?.replace(/\s/g, '');
        if (!digits) throw AppException.invalid('digits', 'digits should not be empty', 'VALIDATION_ERROR');
        if (!DTMF_KEYS.test(digits)) throw AppException.invalid('digits', 'digits must be 0-9, * and #');
        return outcomeOf(this.runtime.customerTurn(workspaceId, callId, pressedKeys(digits), 'dtmf', loaded));
      }
      case 'hangup': {
        const answered = call.status === 'in-progress';
        const moved = await this.lifecycle.move(workspaceId, callId, answered ? 'completed' : 'canceled', {
          endReason: answered ? 'customer_hangup' : 'canceled',
        });
        return { call: moved };
      }
      default: {
        const [to, endReason] = OUTCOMES[dto.action];
        const moved = await this.lifecycle.move(workspaceId, callId, to, {
          endReason,
          error:
            dto.action === 'fail' ? { code: 'SANDBOX_FAILED', message: 'The simulated call failed' } : null,
          check: (c) => {
            if (c.status !== 'ringing') throw new WrongCallStatus(c.id, c.status);
          },
        });
        return { call: moved };
      }
    }
  }
}
