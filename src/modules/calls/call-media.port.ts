import { declarePort } from '@/modules/ports';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/**
 * The call's audio, where it has any (a Twilio media stream, a browser's socket): the voice module implements it,
 * PortBindingsModule binds it. A call without media (the sandbox) is answered at once with nothing played.
 */
export const CALL_MEDIA = declarePort('CALL_MEDIA', 'calls');

export interface CallMedia {
  /**
   * Speaks a stored agent message on the call; resolves once it was played (or could not be). `provider`, the
   * call's when the caller has the row, spares the media side a read of it for a call without media.
   */
  speak(
    workspaceId: WorkspaceId,
    callId: string,
    text: string,
    messageId: string,
    provider?: string,
  ): Promise<void>;
  /** Stops what the agent is saying now. */
  stop(callId: string): void;
  /**
   * The call's stream is about to be replaced (keys are pressed on the line): what the agent says is held for the
   * stream that comes back. `release` undoes it when the provider refused.
   */
  hold(callId: string): void;
  release(callId: string): void;
}
