import { TEMPLATE_STATUSES, templateStatusOf } from './messaging.entities';

describe('templateStatusOf', () => {
  it('keeps our six values, in any case', () => {
    for (const s of TEMPLATE_STATUSES) {
      expect(templateStatusOf(s)).toBe(s);
      expect(templateStatusOf(s.toLowerCase())).toBe(s);
    }
  });

  it.each([
    ['IN_APPEAL', 'PENDING'],
    ['PENDING_DELETION', 'DELETED'],
    ['REINSTATED', 'APPROVED'],
    ['FLAGGED', 'APPROVED'],
    ['ARCHIVED', 'DISABLED'],
  ])("maps Meta's %s to %s", (meta, ours) => {
    expect(templateStatusOf(meta)).toBe(ours);
  });

  it.each(['LOCKED', 'LIMIT_EXCEEDED', 'SOMETHING_NEW', '', null, undefined])(
    'answers null for %p',
    (meta) => {
      expect(templateStatusOf(meta)).toBeNull();
    },
  );
});
