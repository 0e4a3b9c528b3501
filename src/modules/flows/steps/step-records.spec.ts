import type { StepRecord } from '../flow.entity';
import { INTERRUPTED, interrupted, stepRecord } from './step-records';
import type { StoredStep } from './step-tree';

const step = (
  uuid: string,
  key: string,
  parent: string | null = null,
  branch: 'true' | 'false' | null = null,
) =>
  ({
    uuid,
    kind: key === 'webhook' ? 'trigger' : 'action',
    trigger_key: key === 'webhook' ? key : null,
    action_key: key === 'webhook' ? null : key,
    name: null,
    config: {},
    parent_step_uuid: parent,
    branch_key: branch,
  }) as StoredStep;

/** trigger, hook, condition (true: a; false: b), hook after the branches. */
const steps = [
  step('t', 'webhook'),
  step('h1', 'send_webhook'),
  step('c', 'condition'),
  step('a', 'send_webhook', 'c', 'true'),
  step('b', 'send_webhook', 'c', 'false'),
  step('h2', 'send_webhook'),
];
const ok = (i: number, output: unknown = { status_code: 200 }): StepRecord =>
  stepRecord(steps[i], i + 1, 'succeeded', {}, output, null, 1, new Date(0));
const shape = (r: StepRecord[]) => r.map((x) => [x.step_uuid, x.status, x.attempts, x.error?.code ?? null]);

describe('where an interrupted execution resumes', () => {
  it('nothing saved yet: the trigger recorded and the first action counted as one interrupted attempt', () => {
    const at = interrupted(steps, [], 0, { body: 1 });
    expect(at.resumeAt).toBe(1);
    expect(shape(at.records)).toEqual([
      ['t', 'succeeded', 1, null],
      ['h1', 'failed', 1, INTERRUPTED],
    ]);
    expect(at.records[0].output).toEqual({ body: 1 });
  });

  it('after saved steps: the next one, the records before kept as they were', () => {
    const saved = [ok(0), ok(1)];
    const at = interrupted(steps, saved, 0, null);
    expect(at.resumeAt).toBe(2);
    expect(at.records.slice(0, 2)).toEqual(saved);
    expect(shape(at.records)[2]).toEqual(['c', 'failed', 1, INTERRUPTED]);
  });

  it('skips again the branch not taken (skips are saved only with the next step) to reach the step it was on', () => {
    const saved = [ok(0), ok(1), ok(2, { result: false })];
    const at = interrupted(steps, saved, 0, null);
    expect(at.resumeAt).toBe(4);
    expect(shape(at.records).slice(3)).toEqual([
      ['a', 'skipped', 0, null],
      ['b', 'failed', 1, INTERRUPTED],
    ]);
  });

  it('a step resumed after a retry wait counts the interrupted try after the earlier ones', () => {
    const waiting = stepRecord(
      steps[1],
      2,
      'failed',
      { url: 'x' },
      null,
      { code: 'WEBHOOK_FAILED', message: '503' },
      2,
      null,
    );
    const at = interrupted(steps, [ok(0), waiting], 1, null);
    expect(at.resumeAt).toBe(1);
    expect(shape(at.records)).toEqual([
      ['t', 'succeeded', 1, null],
      ['h1', 'failed', 3, INTERRUPTED],
    ]);
    expect(at.records[1].input).toEqual({ url: 'x' });
  });

  it('a retry execution (resume_at at the failed step) resumes there', () => {
    const at = interrupted(steps, [ok(0), ok(1)], 2, null);
    expect(at.resumeAt).toBe(2);
  });

  it('every step done but not ended: resumes past the last step, which ends it', () => {
    const saved = [ok(0), ok(1), ok(2, { result: true }), ok(3)];
    const at = interrupted(steps.slice(0, 5), saved, 0, null);
    expect(at.resumeAt).toBe(5);
    expect(shape(at.records)[4]).toEqual(['b', 'skipped', 0, null]);
  });
});
