import { generalBody } from '@/common/http/error-body';
import { toAppException } from '@/common/http/exceptions.filter';
import {
  AgentNotFound,
  AgentUnavailable,
  CallEnded,
  CallNotFound,
  ConversationClosed,
  DestinationNotAllowed,
  DomainError,
  InboundCallsDisabled,
  NoAgentBound,
  NoNumberBound,
  NumberUnavailable,
  OutboundCallsDisabled,
  ProviderNotConfigured,
  SlotsFull,
  WrongCallStatus,
} from './domain-errors';

const ID = '0190f000-0000-7000-8000-000000000001';

/** Each domain error, the status and body the API answered for that condition before it was typed, its reason. */
const CASES: [DomainError, number, object, string][] = [
  [new CallEnded(ID), 409, { message: 'Call has ended', error: { code: 'CALL_ENDED' } }, 'call_ended'],
  [
    new WrongCallStatus(ID, 'ringing'),
    409,
    { message: 'Call is ringing', error: { code: 'CONFLICT' } },
    'wrong_call_status',
  ],
  [
    new CallNotFound(ID),
    404,
    { message: 'Call not found', error: { code: 'RESOURCE_NOT_FOUND' } },
    'call_not_found',
  ],
  [
    new AgentNotFound(ID),
    404,
    { message: 'Agent not found', error: { code: 'RESOURCE_NOT_FOUND' } },
    'agent_not_found',
  ],
  [
    new AgentUnavailable(ID, 'paused'),
    409,
    { message: 'Agent is paused', error: { code: 'CONFLICT' } },
    'agent_unavailable',
  ],
  [
    new ConversationClosed(ID),
    409,
    { message: 'The conversation is closed', error: { code: 'CONFLICT' } },
    'conversation_closed',
  ],
  [
    new ConversationClosed(ID, true),
    409,
    { message: 'The conversation is already closed', error: { code: 'CONFLICT' } },
    'conversation_closed',
  ],
  [
    new SlotsFull('workspace', 4, 4),
    429,
    {
      message: 'Concurrent call limit reached (4 of 4 active)',
      error: { code: 'CONCURRENCY_LIMIT_EXCEEDED', retryAfter: 5 },
    },
    'slots_full',
  ],
  [
    new SlotsFull('number', 2, 2, '+14155550100'),
    429,
    {
      message: 'Concurrent call limit of +14155550100 reached (2 of 2 active)',
      error: { code: 'CONCURRENCY_LIMIT_EXCEEDED', retryAfter: 5 },
    },
    'slots_full',
  ],
  [
    new NoNumberBound(ID),
    422,
    {
      message: 'phone_number_uuid is required: the agent has no number bound to its call channel',
      error: {
        code: 'VALIDATION_ERROR',
        field: 'phone_number_uuid',
        details: 'phone_number_uuid is required: the agent has no number bound to its call channel',
      },
    },
    'no_number_bound',
  ],
  [
    new NumberUnavailable(null),
    422,
    {
      message: 'phone_number_uuid names no phone number of this workspace',
      error: { code: 'VALIDATION_ERROR', field: 'phone_number_uuid' },
    },
    'number_unavailable',
  ],
  [
    new NumberUnavailable('+14155550100'),
    422,
    {
      message: 'The number +14155550100 is not an active call-capable number',
      error: { code: 'VALIDATION_ERROR', field: 'phone_number_uuid' },
    },
    'number_unavailable',
  ],
  [
    new OutboundCallsDisabled('+14155550100'),
    409,
    {
      message: 'Outbound calls from +14155550100 are disabled (channel_settings.voice.enabled)',
      error: { code: 'CONFLICT' },
    },
    'voice_disabled',
  ],
  [
    new DestinationNotAllowed('+14155550100', 'GB', ['US', 'CA']),
    409,
    {
      message:
        "Calls from +14155550100 to GB are not allowed: GB is not in the number's whitelisted_destinations (US, CA)",
      error: { code: 'CONFLICT' },
    },
    'destination_not_allowed',
  ],
  [
    new DestinationNotAllowed('+14155550100', null, ['US']),
    409,
    {
      message:
        "Calls from +14155550100 to an unknown country are not allowed: it is not in the number's whitelisted_destinations (US)",
      error: { code: 'CONFLICT' },
    },
    'destination_not_allowed',
  ],
  [
    new InboundCallsDisabled('+14155550100'),
    409,
    {
      message: 'Inbound calls on +14155550100 are disabled (channel_settings.inbound.enabled)',
      error: { code: 'CONFLICT' },
    },
    'inbound_disabled',
  ],
  [
    new NoAgentBound('+14155550100', 'phone'),
    409,
    { message: 'The number +14155550100 has no agent bound to phone calls', error: { code: 'CONFLICT' } },
    'no_agent_bound',
  ],
  [
    new ProviderNotConfigured('twilio'),
    409,
    { message: 'Calls through the provider twilio are not configured', error: { code: 'CONFLICT' } },
    'provider_not_configured',
  ],
];

describe('domain errors', () => {
  it.each(CASES.map(([e, status, body, reason]) => [e.name, e, status, body, reason] as const))(
    '%s answers the status, code and message the API answered before, and names its reason',
    (_name, e, status, body, reason) => {
      expect(toAppException(e)).toBe(e);
      expect(e.status).toBe(status);
      expect(generalBody(e)).toMatchObject({ success: false, ...body });
      expect(generalBody(e).error.details).toBe(e.message);
      expect(e.reason).toBe(reason);
    },
  );

  it('carry their data as stored beside the reason', () => {
    expect(new DestinationNotAllowed('+14155550100', null, ['US']).data).toEqual({
      phone_number: '+14155550100',
      country: null,
      whitelisted_destinations: ['US'],
    });
    expect(new AgentUnavailable(ID, 'completed').data).toEqual({ agent_uuid: ID, agent_status: 'completed' });
    expect(JSON.parse(JSON.stringify(new SlotsFull('workspace', 3, 4).data))).toEqual({
      scope: 'workspace',
      count: 3,
      limit: 4,
      phone_number: null,
    });
  });

  it('a 422 names its field once, as AppException.invalid does', () => {
    expect(new NoNumberBound(ID).options.fieldErrors).toEqual([
      {
        code: 'VALIDATION_ERROR',
        field: 'phone_number_uuid',
        message: 'phone_number_uuid is required: the agent has no number bound to its call channel',
      },
    ]);
  });
});
