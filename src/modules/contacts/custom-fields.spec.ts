import { checkCustomFields, checkValue, isCalendarDate, mergeCustomFields } from './custom-fields';

describe('custom field values', () => {
  const defs = [
    { key: 'age', type: 'number' as const, options: [] },
    { key: 'vip', type: 'boolean' as const, options: [] },
    { key: 'birthday', type: 'date' as const, options: [] },
    { key: 'plan', type: 'select' as const, options: ['free', 'pro'] },
    { key: 'notes', type: 'text' as const, options: [] },
  ];

  it('accepts values of the right kind', () => {
    const r = checkCustomFields(
      defs,
      { age: 41, vip: true, birthday: '1985-02-28', plan: 'pro', notes: 'x' },
      'custom_fields',
    );
    expect(r.errors).toEqual([]);
    expect(r.values).toEqual({ age: 41, vip: true, birthday: '1985-02-28', plan: 'pro', notes: 'x' });
  });

  it('names an unknown key with VALIDATION_ERROR', () => {
    const r = checkCustomFields(defs, { shoe_size: 44 }, 'contacts.2.custom_fields');
    expect(r.errors).toEqual([
      expect.objectContaining({ code: 'VALIDATION_ERROR', field: 'contacts.2.custom_fields.shoe_size' }),
    ]);
  });

  it('names a value of the wrong kind with INVALID_FORMAT', () => {
    const r = checkCustomFields(defs, { age: '41', plan: 'gold', birthday: '2026-02-30' }, 'custom_fields');
    expect(r.errors.map((e) => [e.code, e.field])).toEqual([
      ['INVALID_FORMAT', 'custom_fields.age'],
      ['INVALID_FORMAT', 'custom_fields.plan'],
      ['INVALID_FORMAT', 'custom_fields.birthday'],
    ]);
  });

  it('keeps null as a removal and merges', () => {
    const r = checkCustomFields(defs, { age: null, vip: false }, 'custom_fields');
    expect(mergeCustomFields({ age: 3, plan: 'free' }, r.values)).toEqual({ plan: 'free', vip: false });
  });

  it('checks calendar dates and numbers strictly', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2023-02-29')).toBe(false);
    expect(checkValue(defs[0], Number.NaN)).not.toBeNull();
  });
});
