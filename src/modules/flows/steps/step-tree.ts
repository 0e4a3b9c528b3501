import { newId } from '@/common/persistence/base.entity';
import { AppException } from '@/common/errors/app.exception';
import { findReferences, rewriteReferences } from './references';

export type StepKind = 'trigger' | 'action';
export type BranchKey = 'true' | 'false';

/** One step as stored in the draft and in versions; `step_number` is its index + 1. */
export interface StoredStep {
  uuid: string;
  kind: StepKind;
  trigger_key: string | null;
  action_key: string | null;
  name: string | null;
  config: Record<string, unknown>;
  parent_step_uuid: string | null;
  branch_key: BranchKey | null;
}

export const MAX_STEPS = 50;
export const MAX_CONDITION_DEPTH = 3;

export interface NewStep {
  kind: StepKind;
  key: string;
  name: string | null;
  config: Record<string, unknown>;
  insertAfter?: string;
  parent?: string;
  branch?: BranchKey;
}

const isCondition = (s: StoredStep) => s.kind === 'action' && s.action_key === 'condition';

/** The step and every step nested in its branches (they follow it in the list). */
export function subtree(steps: readonly StoredStep[], index: number): number {
  const ids = new Set([steps[index].uuid]);
  let end = index + 1;
  while (end < steps.length && steps[end].parent_step_uuid && ids.has(steps[end].parent_step_uuid!)) {
    ids.add(steps[end].uuid);
    end++;
  }
  return end - index;
}

/** How many conditions enclose a step, itself included when it is one. */
export function conditionDepth(steps: readonly StoredStep[], step: StoredStep): number {
  const byId = new Map(steps.map((s) => [s.uuid, s]));
  let depth = isCondition(step) ? 1 : 0;
  for (let p = step.parent_step_uuid; p; p = byId.get(p)?.parent_step_uuid ?? null) depth++;
  return depth;
}

function find(steps: readonly StoredStep[], uuid: string, field: string): number {
  const i = steps.findIndex((s) => s.uuid === uuid);
  if (i < 0) throw AppException.invalid(field, `${field} names no step of this flow`, 'VALIDATION_ERROR');
  return i;
}

/** Where a new step goes (0-based index) and its parent and branch, from the request's position fields. */
function placement(
  steps: readonly StoredStep[],
  n: NewStep,
): { at: number; parent: string | null; branch: BranchKey | null } {
  if (n.kind === 'trigger') {
    if (steps.some((s) => s.kind === 'trigger'))
      throw AppException.conflict('The flow already has a trigger');
    if (n.parent || n.insertAfter)
      throw AppException.invalid('kind', 'The trigger is always step 1', 'VALIDATION_ERROR');
    return { at: 0, parent: null, branch: null };
  }
  if (!steps.length || steps[0].kind !== 'trigger')
    throw AppException.invalid('kind', 'Add the trigger (step 1) before any action', 'VALIDATION_ERROR');
  let parent: string | null = null;
  let branch: BranchKey | null = null;
  if (n.parent) {
    const p = steps[find(steps, n.parent, 'parent_step_uuid')];
    if (!isCondition(p))
      throw AppException.invalid(
        'parent_step_uuid',
        'parent_step_uuid must name a condition step',
        'VALIDATION_ERROR',
      );
    if (!n.branch)
      throw AppException.invalid(
        'branch_key',
        'branch_key is required with parent_step_uuid',
        'VALIDATION_ERROR',
      );
    parent = p.uuid;
    branch = n.branch;
  } else if (n.branch) {
    throw AppException.invalid(
      'parent_step_uuid',
      'parent_step_uuid is required with branch_key',
      'VALIDATION_ERROR',
    );
  }
  if (n.insertAfter) {
    const i = find(steps, n.insertAfter, 'insert_after_step_uuid');
    const after = steps[i];
    if (n.parent) {
      // Inside a branch: after a step of that branch, or as its first step when "after" is the condition itself.
      if (after.uuid === parent) return { at: firstOfBranch(steps, i, branch!), parent, branch };
      if (after.parent_step_uuid !== parent || after.branch_key !== branch)
        throw AppException.invalid(
          'insert_after_step_uuid',
          'insert_after_step_uuid is not in that branch',
          'VALIDATION_ERROR',
        );
    } else {
      parent = after.kind === 'trigger' ? null : after.parent_step_uuid;
      branch = after.kind === 'trigger' ? null : after.branch_key;
    }
    return { at: i + subtree(steps, i), parent, branch };
  }
  if (parent) {
    const pi = steps.findIndex((s) => s.uuid === parent);
    return { at: endOfBranch(steps, pi, branch!), parent, branch };
  }
  return { at: steps.length, parent: null, branch: null };
}

/** The index right after the condition where its `branch` starts ("false" starts after the "true" children). */
function firstOfBranch(steps: readonly StoredStep[], ci: number, branch: BranchKey): number {
  if (branch === 'true') return ci + 1;
  let i = ci + 1;
  while (
    i < ci + subtree(steps, ci) &&
    steps[i].branch_key === 'true' &&
    steps[i].parent_step_uuid === steps[ci].uuid
  )
    i += subtree(steps, i);
  return i;
}

function endOfBranch(steps: readonly StoredStep[], ci: number, branch: BranchKey): number {
  const cid = steps[ci].uuid;
  let i = firstOfBranch(steps, ci, branch);
  while (i < steps.length && steps[i].parent_step_uuid === cid && steps[i].branch_key === branch)
    i += subtree(steps, i);
  return i;
}

/**
 * Inserts a step: steps from the position on move up by one and every `{{stepK.` with K ≥ position becomes K+1.
 * Answers the new list and the new step.
 */
export function insertStep(
  steps: readonly StoredStep[],
  n: NewStep,
): { steps: StoredStep[]; step: StoredStep } {
  if (steps.length >= MAX_STEPS)
    throw AppException.invalid('kind', `A flow has at most ${MAX_STEPS} steps`, 'VALIDATION_ERROR');
  const { at, parent, branch } = placement(steps, n);
  const position = at + 1;
  const step: StoredStep = {
    uuid: newId(),
    kind: n.kind,
    trigger_key: n.kind === 'trigger' ? n.key : null,
    action_key: n.kind === 'action' ? n.key : null,
    name: n.name,
    config: n.config,
    parent_step_uuid: parent,
    branch_key: branch,
  };
  if (conditionDepth([...steps, step], step) > MAX_CONDITION_DEPTH)
    throw AppException.invalid(
      'parent_step_uuid',
      `Conditions nest at most ${MAX_CONDITION_DEPTH} deep`,
      'VALIDATION_ERROR',
    );
  checkReferences(step.config, position);
  const moved = steps.map((s) => ({
    ...s,
    config: rewriteReferences(s.config, (k) => (k >= position ? k + 1 : k)),
  }));
  moved.splice(at, 0, step);
  return { steps: moved, step };
}

/**
 * Deletes a step with its branch children (m steps): later steps move down by m and references K > p become
 * K − m. A step referenced from outside what goes is a 409 naming the references.
 */
export function deleteStep(steps: readonly StoredStep[], uuid: string): StoredStep[] {
  const i = steps.findIndex((s) => s.uuid === uuid);
  if (i < 0) throw AppException.notFound('Step');
  if (steps[i].kind === 'trigger' && steps.length > 1)
    throw AppException.conflict('The trigger can be deleted only when it is the last step left');
  const m = subtree(steps, i);
  const first = i + 1;
  const last = i + m;
  const refs: string[] = [];
  steps.forEach((s, j) => {
    if (j >= i && j < i + m) return;
    for (const r of findReferences(s.config))
      if (r.step >= first && r.step <= last) refs.push(`steps.${j + 1}.config.${r.path}`);
  });
  if (refs.length)
    throw new AppException('CONFLICT', `The step is referenced by ${[...new Set(refs)].join(', ')}`, {
      details: [...new Set(refs)].join(', '),
    });
  return steps
    .filter((_s, j) => j < i || j >= i + m)
    .map((s) => ({ ...s, config: rewriteReferences(s.config, (k) => (k > last ? k - m : k)) }));
}

/** A reference to the step itself or a later one: 422 INVALID_FORMAT on `config.<path>`. */
export function checkReferences(config: Record<string, unknown>, position: number): void {
  for (const r of findReferences(config))
    if (r.step >= position || r.step < 1)
      throw AppException.invalid(
        `config.${r.path}`,
        `config.${r.path} references step ${r.step}: only earlier steps (1 to ${position - 1}) can be referenced`,
      );
}
