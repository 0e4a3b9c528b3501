import type { Message } from '@/modules/conversations/message.entity';
import type { TurnResponse } from '@/modules/conversations/dto/responses';
import type { Call } from '../call.entity';
import type { CallResponse } from '../dto/responses';

export const DEFAULT_FORWARD_MESSAGE = 'Transferring your call now.';
export const DEFAULT_FORWARD_FAILED = "I couldn't connect you, let me keep helping.";
export const DEFAULT_END_MESSAGE = 'Good Bye';

export type LiveAction =
  | { action: 'say'; message: string; end_call_after_spoken?: boolean; interrupt?: boolean }
  | { action: 'forward'; number?: string; agent_uuid?: string; message?: string; whisper?: boolean }
  | { action: 'hangup'; message?: string }
  | { action: 'mute' }
  | { action: 'unmute' }
  | { action: 'dtmf'; digits: string }
  /** Not a route: a machine or a fax answered (CallVoicemail); `message` is left after the beep, then it hangs up. */
  | { action: 'voicemail'; answered_by: 'machine' | 'fax'; message?: string };

export interface ActionOutcome {
  muted?: boolean;
}

export interface CallTurnResponse extends TurnResponse {
  call: CallResponse;
}

/** A call row as read for a turn or an action, with the workspace's agent configuration version beside it. */
export interface LoadedCall {
  call: Call;
  agentConfigVersion: string | null;
  /** The conversation's last messages, read with the call row for a turn's prompt. */
  history?: Message[];
  /** The contact's last `MAX_SUMMARIES` session summaries, newest first, read with the call row. */
  summaries?: string[];
}
