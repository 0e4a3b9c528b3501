import { declarePort } from '@/modules/ports';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/**
 * What the built-in `send_dtmf` tool needs of calls: keys pressed on the line. The calls module implements it
 * (CallKeypad); PortBindingsModule binds it.
 */
export const CALL_KEYPAD = declarePort('CALL_KEYPAD', 'intents');

export interface CallKeypad {
  /**
   * Presses `digits` on the call (`0-9`, `*`, `#`; `w` waits half a second), stored as the agent's `dtmf` message;
   * throws an AppException when the call cannot take them (not in progress, ended, with a human, refused).
   */
  press(
    workspaceId: WorkspaceId,
    callId: string,
    digits: string,
  ): Promise<{ digits: string; message_uuid: string }>;
}
