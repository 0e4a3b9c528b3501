import type { TracedSpec } from '@/common/telemetry/traced';
import type { ActionContext } from './actions/action';
import type { ClaimedExecution } from './executions.repository';

/**
 * The `flow.execution` span: one execution run from its start (or resume) to its end or pause; what triggered it
 * and whether it ended (a pause for a retried step leaves it running).
 */
export const FLOW_EXECUTION_SPAN: TracedSpec<[c: ClaimedExecution, fromStore: boolean], Promise<boolean>> = {
  attributes: ({ execution: e }, fromStore) => ({
    'workspace.id': e.workspaceId,
    'flow.id': e.flowId,
    'flow.version': e.version,
    'flow.execution.id': e.id,
    'flow.trigger': e.trigger?.key,
    'flow.resumed': fromStore,
  }),
  result: (span, ended) => span.setAttribute('flow.execution.ended', ended),
};

/** The `flow.step` span: one attempt of one step's action (inputs and outputs are never recorded). */
export const FLOW_STEP_SPAN: TracedSpec<
  [key: string, input: Record<string, unknown>, ctx: ActionContext],
  Promise<unknown>
> = {
  attributes: (key, _input, ctx) => ({
    'workspace.id': ctx.workspaceId,
    'flow.execution.id': ctx.executionId,
    'flow.step.number': ctx.stepNumber,
    'flow.step.action': key,
    'flow.step.attempt': ctx.attempt,
  }),
};
