import type { StepRecord } from '../flow.entity';
import type { StoredStep } from './step-tree';

/** The error of a step whose process stopped while it ran. */
export const INTERRUPTED = 'INTERRUPTED';

/** One step's record; `t0` (a `performance.now()` at the start) gives its duration. */
export function stepRecord(
  step: StoredStep,
  n: number,
  status: StepRecord['status'],
  input: unknown,
  output: unknown,
  error: StepRecord['error'],
  attempts: number,
  at: Date | null,
  t0?: number,
): StepRecord {
  return {
    step_uuid: step.uuid,
    step_number: n,
    key: (step.trigger_key ?? step.action_key)!,
    status,
    input,
    output,
    error,
    attempts,
    started_at: at?.toISOString() ?? null,
    duration_ms: t0 === undefined ? (at ? 0 : null) : Math.round(performance.now() - t0),
  };
}

/** A step inside a branch that did not run: its condition went the other way or was itself skipped. */
export function branchSkipped(steps: StoredStep[], i: number, records: StepRecord[]): boolean {
  const parent = steps[i].parent_step_uuid;
  if (!parent) return false;
  const pi = steps.findIndex((s) => s.uuid === parent);
  const rec = records[pi];
  if (!rec || rec.status !== 'succeeded') return true;
  const result = (rec.output as { result?: boolean } | null)?.result === true;
  return String(result) !== steps[i].branch_key;
}

/**
 * Where an execution whose process died resumes, and its records then. Stored records are the steps that ended
 * (the trigger first), or end with the failed record of a step waiting to be tried again, which is the step it
 * was on; otherwise it was on the first step after them that its branches do not skip (skipped steps are saved
 * only with the next step that runs, so they are recorded again here). That step gets a failed record `INTERRUPTED`
 * counting the interrupted try as an attempt; the resume tries it again as the next one.
 */
export function interrupted(
  steps: StoredStep[],
  stored: StepRecord[],
  resumeAt: number,
  triggerData: unknown,
): { resumeAt: number; records: StepRecord[] } {
  const records = stored.length
    ? [...stored]
    : [stepRecord(steps[0], 1, 'succeeded', null, triggerData, null, 1, null)];
  const waiting = stored[stored.length - 1]?.status === 'failed';
  let i = Math.min(records.length, Math.max(1, resumeAt, waiting ? stored.length - 1 : stored.length));
  records.length = i;
  for (; i < steps.length && branchSkipped(steps, i, records); i++)
    records.push(stepRecord(steps[i], i + 1, 'skipped', null, null, null, 0, null));
  if (i >= steps.length) return { resumeAt: i, records };
  const prior = stored[i]?.step_uuid === steps[i].uuid ? stored[i] : undefined;
  const error = { code: INTERRUPTED, message: 'The process running this step stopped; it is tried again' };
  records.push(
    stepRecord(
      steps[i],
      i + 1,
      'failed',
      prior?.input ?? null,
      null,
      error,
      (prior?.attempts ?? 0) + 1,
      null,
    ),
  );
  return { resumeAt: i, records };
}
