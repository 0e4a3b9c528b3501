import { Inject, Injectable } from '@nestjs/common';
import type { ActionOutcome } from '@/modules/runtime/tools/intent-actions.port';
import type { IntentTool } from '@/modules/runtime/tools/tool-definitions';
import type { TurnToolsContext } from '@/modules/runtime/tools/turn-tools';
import { failed, outcome } from './action-outcome';
import { CALL_KEYPAD, CallKeypad } from './call-keypad.port';

/**
 * Runs the built-in tools (the runtime's tools/builtin-tools.ts); never throws (a failure is an outcome the model is
 * told about).
 */
@Injectable()
export class BuiltinToolRunner {
  constructor(@Inject(CALL_KEYPAD) private readonly keypad: CallKeypad) {}

  async run(
    tool: IntentTool,
    parameters: Record<string, unknown>,
    ctx: TurnToolsContext,
  ): Promise<ActionOutcome> {
    switch (tool.builtin) {
      case 'send_dtmf':
        return this.sendDtmf(String(parameters.digits), ctx);
      default:
        return failed(`${tool.name} is not a built-in tool`, {});
    }
  }

  private async sendDtmf(digits: string, ctx: TurnToolsContext): Promise<ActionOutcome> {
    const request = {}; // the parameters are in the records already
    try {
      await this.keypad.press(ctx.workspaceId, ctx.conversation.id, digits);
      return outcome('succeeded', { sent: true, digits }, request);
    } catch (err) {
      return failed(err instanceof Error ? err.message : 'the keys could not be pressed', request);
    }
  }
}
