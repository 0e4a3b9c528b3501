import type { AgentResponse, IntentResponse } from '@/modules/agents/dto/agent.response';
import { DTMF_SEQUENCE, DTMF_SEQUENCE_RULE } from '@/common/telephony/dtmf';
import type { ArgumentCheck, IntentTool } from './tool-definitions';

/** Tools the service itself runs, offered beside the agent's intents when the agent opts in. */
export type BuiltinToolName = 'send_dtmf';

export const SEND_DTMF = 'send_dtmf';

/** `settings.voice.dtmf_tool`: the agent may press keys on its phone calls (default false). */
export function dtmfToolEnabled(agent: AgentResponse): boolean {
  return agent.settings?.voice?.dtmf_tool === true;
}

/** The intent a built-in tool is recorded under (`intent_call`, action log): no stored intent stands behind it. */
function builtinIntent(key: string, name: string, description: string): IntentResponse {
  return {
    intent_uuid: '',
    key,
    name,
    description,
    recommendation_actions: null,
    confidence_threshold: 1,
    is_system: true,
    intent_llm_handle_by_response: true,
    webhook: null,
    parameters: [],
    created_at: '',
    updated_at: '',
  };
}

const SEND_DTMF_DESCRIPTION =
  'Press keys on the phone line, as a caller does on a keypad, to navigate an automated phone menu (IVR): for ' +
  'example "1" to choose option one, "1234#" to enter a code. "w" waits half a second between keys.';

function sendDtmf(): IntentTool {
  return {
    name: SEND_DTMF,
    builtin: 'send_dtmf',
    intent: builtinIntent(SEND_DTMF, 'Send DTMF', SEND_DTMF_DESCRIPTION),
    action: null,
    definition: {
      type: 'function',
      function: {
        name: SEND_DTMF,
        description: SEND_DTMF_DESCRIPTION,
        parameters: {
          type: 'object',
          properties: {
            digits: {
              type: 'string',
              pattern: DTMF_SEQUENCE.source,
              description: `The keys to press: ${DTMF_SEQUENCE_RULE}`,
            },
          },
          required: ['digits'],
        },
      },
    },
  };
}

/**
 * The built-in tools offered on a conversation of `channel`: `send_dtmf` on phone calls of agents with
 * `settings.voice.dtmf_tool: true`. An intent of the agent with the same key keeps the name (the built-in is not
 * offered then).
 */
export function builtinTools(agent: AgentResponse, channel: string | undefined): IntentTool[] {
  const taken = new Set((agent.intents ?? []).map((i) => i.key));
  const tools: IntentTool[] = [];
  if (channel === 'phone' && dtmfToolEnabled(agent) && !taken.has(SEND_DTMF)) tools.push(sendDtmf());
  return tools;
}

/** The model's arguments of a built-in tool checked (extra keys are ignored). */
export function checkBuiltinArguments(name: BuiltinToolName, given: Record<string, unknown>): ArgumentCheck {
  switch (name) {
    case 'send_dtmf': {
      const digits = given.digits;
      return typeof digits === 'string' && DTMF_SEQUENCE.test(digits)
        ? { ok: true, parameters: { digits } }
        : { ok: false, details: [`digits must be ${DTMF_SEQUENCE_RULE}`] };
    }
  }
}
