import type { FieldError } from '@/common/errors/app.exception';
import { catalogEntry, configErrors } from './catalog';
import type { Flow, FlowExecution, FlowVersion } from './flow.entity';
import type {
  ExecutionResponse,
  FlowResponse,
  FlowStepResponse,
  FlowVersionResponse,
} from './dto/flow.response';
import type { StoredStep } from './steps/step-tree';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** Problems left in a step's config (missing required values); empty when it can deploy. */
export function stepErrors(s: StoredStep): FieldError[] {
  const entry = catalogEntry(s.kind, (s.trigger_key ?? s.action_key)!);
  return entry ? configErrors(entry, s.config) : [];
}

export function stepsView(steps: StoredStep[]): FlowStepResponse[] {
  return steps.map((s, i) => ({
    uuid: s.uuid,
    step_number: i + 1,
    kind: s.kind,
    trigger_key: s.trigger_key,
    action_key: s.action_key,
    name: s.name,
    config: s.config,
    parent_step_uuid: s.parent_step_uuid,
    branch_key: s.branch_key,
    validation_errors: stepErrors(s),
  }));
}

export function flowView(f: Flow): FlowResponse {
  return {
    uuid: f.id,
    name: f.name,
    description: f.description,
    status: f.status,
    live_version: f.liveVersion,
    has_undeployed_changes: f.hasUndeployedChanges,
    steps: stepsView(f.steps),
    deployed_at: iso(f.deployedAt),
    disabled_at: iso(f.disabledAt),
    created_at: new Date(f.createdAt).toISOString(),
    updated_at: new Date(f.updatedAt).toISOString(),
  };
}

export function versionView(v: FlowVersion): FlowVersionResponse {
  return {
    uuid: v.id,
    flow_uuid: v.flowId,
    version_number: v.versionNumber,
    steps: stepsView(v.steps),
    deployed_at: new Date(v.deployedAt).toISOString(),
  };
}

const SECRET_KEY = /^(secret|authorization|x-api-key|api_key|password|token)$/i;

/** A copy with secrets masked: `authorization` headers and keys named like a secret. */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        SECRET_KEY.test(k) && v !== null && v !== undefined ? '***' : maskSecrets(v),
      ]),
    );
  return value;
}

export function executionView(e: FlowExecution, withSteps: boolean): ExecutionResponse {
  const view: ExecutionResponse = {
    uuid: e.id,
    flow_uuid: e.flowId,
    version: e.version,
    status: e.status,
    trigger: e.trigger,
    retry_of: e.retryOf,
    error: e.error ? { code: e.error.code, message: e.error.message } : null,
    started_at: iso(e.startedAt),
    finished_at: iso(e.finishedAt),
  };
  if (withSteps) view.steps = e.steps.map((s) => ({ ...s, input: maskSecrets(s.input) }));
  return view;
}
