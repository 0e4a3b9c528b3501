import type { EntityManager } from 'typeorm';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import type { PhoneNumber } from '@/modules/phone-numbers/phone-number.entity';
import type { CallStatus } from '@/providers/telephony/telephony.port';
import type { Call, CallChannel, CallDirection } from '../call.entity';
import type { VoicemailOverride, VoicemailPolicy } from '@/modules/agents/voicemail-policy';

/** A call about to be written, whichever way it came (the API, a task, an inbound hook). */
export interface NewCall {
  direction: CallDirection;
  channel: CallChannel;
  status: CallStatus;
  agent: AgentResponse;
  /** The workspace's line; none for a web call (`provider` names its provider then). */
  number: PhoneNumber | null;
  provider?: string;
  contactId: string | null;
  /** The customer's phone number; null for a web call (no contact is looked up or created by number). */
  customer: string | null;
  from: string;
  to: string;
  firstMessage: string | null;
  prompt: Call['prompt'];
  about: string | null;
  variables: Record<string, string>;
  metadata: Record<string, unknown>;
  record: boolean;
  maxDurationSeconds: number;
  ringTimeoutSeconds: number;
  campaignId?: string | null;
  taskId?: string | null;
  /** The answering-machine policy of an outbound call. */
  voicemail?: VoicemailPolicy | null;
  /** Runs first in the transaction that writes the call (see `TaskCall.link`). */
  link?: CallLink;
}

/**
 * Work done in the transaction that writes a call, before the call is written, given the call's id: what throws
 * there writes no call (and gives its slot back), so nothing is dialled.
 */
export type CallLink = (tx: EntityManager, callId: string) => Promise<void>;

/** A task's attempt: the call to place for it (the do-not-call check is the caller's). */
export interface TaskCall {
  agentId: string;
  to: string;
  contactId: string;
  phoneNumberId: string | null;
  campaignId: string | null;
  taskId: string;
  variables: Record<string, string>;
  metadata: Record<string, unknown>;
  /** The campaign's (or the task's) voicemail keys, over the agent's. */
  voicemail?: VoicemailOverride | null;
  /**
   * The task's start, in the call's transaction: the call is written only with the task moved to `in_progress`
   * (a task cancelled meanwhile throws, and no call is made).
   */
  link?: CallLink;
}
