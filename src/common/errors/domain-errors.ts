import { AppException, AppExceptionOptions } from './app.exception';
import type { ErrorCode } from './error-codes';

/** Data a domain error carries, as stored beside its reason (JSON: a task's `failure_data`). */
export type DomainErrorData = Record<string, string | number | boolean | null | string[]>;

/**
 * A condition the code branches on or stores, with its data. This file alone says how each one is answered: the
 * error code (hence the status), the English message and the field. Callers test `instanceof` the class, never a
 * code; what is stored (a task's `failure_reason`) is `reason` and `data`, never the message.
 */
export abstract class DomainError extends AppException {
  protected constructor(
    code: ErrorCode,
    message: string,
    /** A stable lower-case name of the condition. */
    readonly reason: string,
    readonly data: DomainErrorData | null = null,
    options: AppExceptionOptions = {},
  ) {
    super(code, message, options);
    this.name = new.target.name;
  }
}

/** The options of a 422 naming one field, as `AppException.invalid` builds them. */
function onField(field: string, code: ErrorCode, message: string): AppExceptionOptions {
  return { details: message, field, fieldErrors: [{ code, field, message }] };
}

// ---- Calls ----

/** The call has ended: nothing more can be done on it. */
export class CallEnded extends DomainError {
  constructor(readonly callId: string) {
    super('CALL_ENDED', 'Call has ended', 'call_ended', { call_uuid: callId });
  }
}

/** The call is live but not in the status the move or action needs (ringing, not yet answered...). */
export class WrongCallStatus extends DomainError {
  constructor(
    readonly callId: string,
    readonly callStatus: string,
  ) {
    super('CONFLICT', `Call is ${callStatus}`, 'wrong_call_status', {
      call_uuid: callId,
      status: callStatus,
    });
  }
}

export class CallNotFound extends DomainError {
  constructor(readonly callId: string) {
    super('RESOURCE_NOT_FOUND', 'Call not found', 'call_not_found', { call_uuid: callId });
  }
}

/** No concurrency slot: the workspace's limit, or the number's channel limit, is reached. */
export class SlotsFull extends DomainError {
  static readonly RETRY_AFTER_SECONDS = 5;

  constructor(
    readonly scope: 'workspace' | 'number',
    readonly count: number,
    readonly limit: number,
    /** The number whose limit is reached (scope `number`). */
    readonly number: string | null = null,
  ) {
    super(
      'CONCURRENCY_LIMIT_EXCEEDED',
      scope === 'number' && number
        ? `Concurrent call limit of ${number} reached (${count} of ${limit} active)`
        : `Concurrent call limit reached (${count} of ${limit} active)`,
      'slots_full',
      { scope, count, limit, phone_number: number },
      { retryAfter: SlotsFull.RETRY_AFTER_SECONDS },
    );
  }
}

// ---- Agents ----

export class AgentNotFound extends DomainError {
  constructor(readonly agentId: string) {
    super('RESOURCE_NOT_FOUND', 'Agent not found', 'agent_not_found', { agent_uuid: agentId });
  }
}

/** The agent is `paused` or `completed`: it takes no new call. */
export class AgentUnavailable extends DomainError {
  constructor(
    readonly agentId: string,
    readonly agentStatus: string,
  ) {
    super('CONFLICT', `Agent is ${agentStatus}`, 'agent_unavailable', {
      agent_uuid: agentId,
      agent_status: agentStatus,
    });
  }
}

// ---- Conversations ----

/** The conversation is closed (`closing`: by the request that tried to close it). */
export class ConversationClosed extends DomainError {
  constructor(
    readonly conversationId: string,
    closing = false,
  ) {
    super(
      'CONFLICT',
      closing ? 'The conversation is already closed' : 'The conversation is closed',
      'conversation_closed',
      { conversation_uuid: conversationId },
    );
  }
}

// ---- Phone numbers and providers ----

/** The agent has no number bound to its call channel, and the call names none. */
export class NoNumberBound extends DomainError {
  constructor(readonly agentId: string) {
    const message = 'phone_number_uuid is required: the agent has no number bound to its call channel';
    super(
      'VALIDATION_ERROR',
      message,
      'no_number_bound',
      { agent_uuid: agentId },
      onField('phone_number_uuid', 'VALIDATION_ERROR', message),
    );
  }
}

/** The caller number named is not one of the workspace's (`number` null), or is not an active call-capable one. */
export class NumberUnavailable extends DomainError {
  constructor(readonly number: string | null) {
    const message = number
      ? `The number ${number} is not an active call-capable number`
      : 'phone_number_uuid names no phone number of this workspace';
    super(
      'VALIDATION_ERROR',
      message,
      'number_unavailable',
      { phone_number: number },
      onField('phone_number_uuid', 'VALIDATION_ERROR', message),
    );
  }
}

/** The number's `channel_settings.voice.enabled` is false. */
export class OutboundCallsDisabled extends DomainError {
  constructor(readonly number: string) {
    super(
      'CONFLICT',
      `Outbound calls from ${number} are disabled (channel_settings.voice.enabled)`,
      'voice_disabled',
      { phone_number: number },
    );
  }
}

/** The destination's country (null: unknown) is not in the number's `whitelisted_destinations`. */
export class DestinationNotAllowed extends DomainError {
  constructor(
    readonly number: string,
    readonly country: string | null,
    readonly whitelist: string[],
  ) {
    super(
      'CONFLICT',
      `Calls from ${number} to ${country ?? 'an unknown country'} are not allowed: ` +
        `${country ?? 'it'} is not in the number's whitelisted_destinations (${whitelist.join(', ')})`,
      'destination_not_allowed',
      { phone_number: number, country, whitelisted_destinations: whitelist },
    );
  }
}

/** The number's `channel_settings.inbound.enabled` is false. */
export class InboundCallsDisabled extends DomainError {
  constructor(readonly number: string) {
    super(
      'CONFLICT',
      `Inbound calls on ${number} are disabled (channel_settings.inbound.enabled)`,
      'inbound_disabled',
      { phone_number: number },
    );
  }
}

/** An inbound call reached a number with no agent bound to that kind of call. */
export class NoAgentBound extends DomainError {
  constructor(
    readonly number: string,
    readonly channel: string,
  ) {
    super('CONFLICT', `The number ${number} has no agent bound to ${channel} calls`, 'no_agent_bound', {
      phone_number: number,
      channel,
    });
  }
}

/** No telephony adapter of that provider is configured. */
export class ProviderNotConfigured extends DomainError {
  constructor(readonly provider: string) {
    super(
      'CONFLICT',
      `Calls through the provider ${provider} are not configured`,
      'provider_not_configured',
      { provider },
    );
  }
}
