import { AppException } from '@/common/errors/app.exception';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** Twilio's call statuses, which the call resource keeps. */
export const CALL_STATUSES = [
  'queued',
  'ringing',
  'in-progress',
  'completed',
  'busy',
  'no-answer',
  'failed',
  'canceled',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export interface ProviderError {
  code: string;
  message: string;
}

/**
 * The provider refused a request with an error of its own: `provider` is that error as a call keeps it
 * (`{code: "TWILIO_21211", message: <Twilio's message>}`); the exception itself is a `PROVIDER_ERROR`.
 */
export class ProviderRefusal extends AppException {
  constructor(
    message: string,
    readonly provider: ProviderError,
  ) {
    super('PROVIDER_ERROR', message, { details: JSON.stringify(provider) });
  }
}

/** A status the provider reports for a call (Twilio's status callback; the sandbox's delayed outcome). */
export interface ProviderCallEvent {
  status: CallStatus;
  error?: ProviderError | null;
  /** The provider's own fields, kept in the call's provider log. */
  detail?: Record<string, unknown>;
}

/** Who answered, as the provider's answering-machine detection says it (Twilio's `AnsweredBy` values). */
export interface MachineDetectionReport {
  source: 'twilio' | 'sandbox';
  /** `human`, `machine_start`, `machine_end_beep`, `machine_end_silence`, `machine_end_other`, `fax`, `unknown`. */
  answeredBy: string;
  durationMs: number | null;
  /** The provider's own fields, kept in the call's provider log. */
  detail?: Record<string, unknown>;
}

/** The `calls` jobs that carry a provider's report, declared into the queue table (common/queue names no provider). */
declare module '@/common/queue/queues' {
  interface CallJobs {
    /** A status the provider reported (the sandbox's outcomes arrive this way). */
    'provider-event': { workspaceId: WorkspaceId; callId: string; event: ProviderCallEvent };
    /** Who answered, as the provider's answering-machine detection reported it (Twilio's AMD callback, the sandbox). */
    'machine-detection': { workspaceId: WorkspaceId; callId: string; report: MachineDetectionReport };
  }
}

/**
 * Options of a `machine-detection` job: a report that finds its call not answered yet (the answer still on its way)
 * is tried again this often, for some 10 s.
 */
export const DETECTION_RETRY = { attempts: 40, backoff: { type: 'fixed', delay: 250 } } as const;

/** A customer's SIP trunk that carries the caller number: the call goes to `sip:<to>@<gateway>`. */
export interface TrunkRoute {
  gateway: string;
  secondaryGateway: string | null;
  username: string | null;
  password: string | null;
}

/** A SIP address to bridge to (an extension on a PBX) and its digest credentials. */
export interface SipTarget {
  uri: string;
  username: string | null;
  password: string | null;
}

export interface DialRequest {
  workspaceId: WorkspaceId;
  callId: string;
  from: string;
  to: string;
  ringTimeoutSeconds: number;
  record: boolean;
  /**
   * Answering-machine detection: the provider reports who answered (Twilio's asynchronous AMD with
   * `DetectMessageEnd`; the sandbox by number) as a `machine-detection` job.
   */
  machineDetection?: boolean;
  /** Set when the caller number rides on a SIP trunk. */
  trunk?: TrunkRoute | null;
}

export interface ProviderCallRef {
  workspaceId: WorkspaceId;
  callId: string;
  providerCallId: string | null;
  to: string;
}

export interface ForwardTarget {
  type: 'phone_number' | 'extension';
  value: string;
  /** The line the person answering hears first, when whispered. */
  whisper: string | null;
  /** For an extension: where the PBX connector says it is; none means no connector, and the forward fails. */
  sip?: SipTarget | null;
}

/**
 * A telephony provider. Progress after `dial` arrives asynchronously as ProviderCallEvents handed to the
 * ProviderEventSink (the sandbox schedules them as delayed jobs; Twilio posts signed status callbacks).
 */
export interface TelephonyAdapter {
  /** The `provider` value of numbers this adapter serves, and of the calls it places. */
  readonly provider: string;
  /** Calls of this adapter are simulations (`is_simulation`). */
  readonly simulated: boolean;
  /** Places the call; answers the provider's id for it (`CA...`, `SB...`). */
  dial(request: DialRequest): Promise<{ providerCallId: string }>;
  /** Ends the call: canceled when not answered yet, completed when it was. */
  hangup(call: ProviderCallRef, answered: boolean): Promise<void>;
  /** Why calls cannot be placed through this adapter now (a missing service), or null. */
  unavailableReason?(): string | null;
  /** Bridges the call to a number or an extension; answers whether the other leg connected. */
  forward(call: ProviderCallRef, target: ForwardTarget): Promise<{ connected: boolean }>;
  /**
   * Presses keys on the answered call (`0-9`, `*`, `#`; `w` waits half a second); answers what the provider
   * reported, for the call's provider log.
   */
  sendDigits(call: ProviderCallRef, digits: string): Promise<Record<string, unknown>>;
}

export const TELEPHONY_ADAPTERS = Symbol('TELEPHONY_ADAPTERS');

/** Where adapters hand the provider's events; the calls module implements it. */
export abstract class ProviderEventSink {
  abstract report(workspaceId: WorkspaceId, callId: string, event: ProviderCallEvent): Promise<void>;
}
