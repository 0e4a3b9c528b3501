import { AppException } from '@/common/errors/app.exception';
import { findReferences, render, rewriteReferences } from './references';
import { deleteStep, insertStep, StoredStep } from './step-tree';

const add = (steps: StoredStep[], key: string, extra: Partial<Parameters<typeof insertStep>[1]> = {}) =>
  insertStep(steps, { kind: 'action', key, name: null, config: {}, ...extra });

function base(): StoredStep[] {
  let s = insertStep([], { kind: 'trigger', key: 'webhook', name: null, config: {} }).steps;
  s = add(s, 'send_webhook', { config: { body: { a: '{{step1.body.a}}' } } }).steps;
  s = add(s, 'send_webhook', { config: { body: { b: ['x {{ step2.status_code }} y'] } } }).steps;
  return s;
}

describe('flow step references', () => {
  it('finds references at any depth with their paths', () => {
    expect(findReferences({ a: { b: ['{{step3.x}} and {{step1}}'] } })).toEqual([
      { path: 'a.b.0', step: 3 },
      { path: 'a.b.0', step: 1 },
    ]);
  });

  it('rewrites only the numbers the map changes, keeping spaces and paths', () => {
    expect(rewriteReferences({ s: '{{ step2.a }}-{{step5.b.0}}' }, (k) => (k >= 2 ? k + 1 : k))).toEqual({
      s: '{{ step3.a }}-{{step6.b.0}}',
    });
  });

  it('renders a whole reference with its type and a reference in text as text', () => {
    const outputs = new Map<number, unknown>([[2, { status_code: 200, body: { id: 7 } }]]);
    expect(
      render({ n: '{{step2.status_code}}', t: 'code {{step2.status_code}}', o: '{{step2.body}}' }, outputs),
    ).toEqual({
      n: 200,
      t: 'code 200',
      o: { id: 7 },
    });
    expect(render('{{step9.x}}', outputs)).toBeNull();
  });
});

describe('flow step tree', () => {
  it('inserting in the middle moves later references up', () => {
    const s = base();
    const { steps } = add(s, 'send_webhook', { insertAfter: s[0].uuid });
    expect(steps[3].config).toEqual({ body: { b: ['x {{ step3.status_code }} y'] } });
    expect(steps[2].config).toEqual({ body: { a: '{{step1.body.a}}' } });
  });

  it('places branch children after their condition, true before false, and deletes them with it', () => {
    let s = base();
    const cond = add(s, 'condition', { insertAfter: s[1].uuid });
    s = cond.steps;
    s = add(s, 'send_webhook', { parent: cond.step.uuid, branch: 'false' }).steps;
    s = add(s, 'send_webhook', { parent: cond.step.uuid, branch: 'true' }).steps;
    expect(s.map((x) => x.branch_key)).toEqual([null, null, null, 'true', 'false', null]);
    expect(s[5].config).toEqual({ body: { b: ['x {{ step2.status_code }} y'] } });
    const after = deleteStep(s, cond.step.uuid);
    expect(after).toHaveLength(3);
  });

  it('refuses deleting a referenced step, naming the reference', () => {
    const s = base();
    expect(() => deleteStep(s, s[1].uuid)).toThrow(AppException);
    try {
      deleteStep(s, s[1].uuid);
    } catch (err) {
      expect((err as AppException).message).toContain('steps.3.config.body.b.0');
    }
  });

  it('refuses a fourth level of conditions and a reference to a later step', () => {
    let s = base();
    let parent: string | undefined;
    for (let depth = 1; depth <= 3; depth++) {
      const r = add(s, 'condition', parent ? { parent, branch: 'true' } : {});
      s = r.steps;
      parent = r.step.uuid;
    }
    expect(() => add(s, 'condition', { parent, branch: 'true' })).toThrow(AppException);
    expect(() => add(s, 'send_webhook', { config: { x: `{{step${s.length + 1}.a}}` } })).toThrow(
      AppException,
    );
  });
});
