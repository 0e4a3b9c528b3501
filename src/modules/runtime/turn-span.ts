import type { TracedSpec } from '@/common/telemetry/traced';
import { isVoiceChannel } from '@/modules/conversations/channels';
import type { TurnOptions } from './conversation-turns.service';
import type { TurnResponse } from '@/modules/conversations/dto/responses';
import type { WorkspaceId } from '@/common/auth/workspace-id';

type TurnArgs = [workspaceId: WorkspaceId, conversationId: string, content: string, options?: TurnOptions];

/** A call's turn (its conversation is the call) belongs to the call's trace. */
const callOf = (conversationId: string, options?: TurnOptions): string | undefined =>
  options?.conversation && isVoiceChannel(options.conversation.channel) ? conversationId : undefined;

/**
 * The `turn` span of a customer turn: its ids, the kind of message, what came of it (a reply, a rule's action). A
 * call's turn is a child of the call's `call` span (the request or job it came from is linked); a voice turn already
 * timed from the end of speech by the media session is that same span. The customer's and the agent's words only
 * with OTEL_CAPTURE_CONTENT=true.
 */
export const TURN_SPAN: TracedSpec<TurnArgs, Promise<TurnResponse>> = {
  attributes: (workspaceId, conversationId, _content, options) => ({
    'workspace.id': workspaceId,
    'conversation.id': conversationId,
    'call.id': callOf(conversationId, options),
    'agent.id': options?.context?.agent.uuid,
    'turn.message_type': options?.messageType ?? 'text',
    'turn.muted': !!options?.muted,
    'turn.speculative': !!options?.live?.commit,
  }),
  options: (_workspaceId, conversationId, _content, options) => ({
    call: callOf(conversationId, options),
    reuse: true,
  }),
  around: (span, _started, args) => {
    span.setContent('turn.text', args[2]);
    return args;
  },
  result: (span, turn) => {
    span.setAttributes({
      'agent.id': turn.conversation.agent_uuid,
      'turn.replied': !!turn.reply,
      'turn.action': turn.action?.kind,
      'turn.reply_unavailable': !!turn.reply_unavailable_reason,
    });
    span.setContent('turn.reply', turn.reply?.content);
  },
};
