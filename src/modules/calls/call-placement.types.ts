import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import type { PhoneNumber } from '@/modules/phone-numbers/phone-number.entity';
import type { CallStatus } from '@/providers/telephony/telephony.port';
import type { Call, CallChannel, CallDirection } from './call.entity';

/** A call about to be written, whichever way it came (the API, a task, an inbound hook). */
export interface NewCall {
  direction: CallDirection;
  channel: CallChannel;
  status: CallStatus;
  agent: AgentResponse;
  number: PhoneNumber;
  contactId: string | null;
  customer: string;
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
}

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
}
