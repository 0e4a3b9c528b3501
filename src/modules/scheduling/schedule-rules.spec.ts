import {
  checkAnswers,
  checkQuestions,
  checkWeeklyHours,
  normalizeWeeklyHours,
  parseDay,
} from './schedule-rules';

describe('weekly hours', () => {
  it('accepts intervals per weekday', () => {
    expect(
      checkWeeklyHours({
        mon: [
          ['09:00', '12:00'],
          ['13:00', '17:00'],
        ],
        sun: [],
        fri: [['00:00', '24:00']],
      }),
    ).toEqual([]);
  });

  it.each([
    [[], 'weekly_hours'],
    [{ funday: [] }, 'weekly_hours.funday'],
    [{ mon: 'all day' }, 'weekly_hours.mon'],
    [{ mon: [['9:00', '17:00']] }, 'weekly_hours.mon.0'],
    [
      {
        tue: [
          ['09:00', '17:00'],
          ['18:00', '17:30'],
        ],
      },
      'weekly_hours.tue.1',
    ],
    [
      {
        wed: [
          ['09:00', '12:00'],
          ['11:00', '13:00'],
        ],
      },
      'weekly_hours.wed.1',
    ],
    [{ thu: [['25:00', '26:00']] }, 'weekly_hours.thu.0'],
  ])('names the bad part of %j', (value, field) => {
    expect(checkWeeklyHours(value)).toEqual([expect.objectContaining({ code: 'INVALID_FORMAT', field })]);
  });

  it('orders days and intervals', () => {
    expect(
      Object.keys(
        normalizeWeeklyHours({
          sun: [],
          mon: [
            ['13:00', '14:00'],
            ['09:00', '10:00'],
          ],
        }),
      ),
    ).toEqual(['mon', 'sun']);
  });
});

describe('custom answers', () => {
  const questions = [
    { name: 'topic', type: 'text' as const, required: true, description: null },
    { name: 'guests', type: 'number' as const, required: false, description: null },
    { name: 'callback', type: 'phone' as const, required: false, description: null },
  ];

  it('accepts fitting answers', () => {
    expect(checkAnswers(questions, { topic: 'pricing', guests: 2, callback: '+14155552671' }, true)).toEqual(
      [],
    );
  });

  it('names unknown, wrongly typed and missing required answers', () => {
    expect(
      checkAnswers(questions, { colour: 'red', guests: 'two' }, true).map((e) => [e.code, e.field]),
    ).toEqual([
      ['VALIDATION_ERROR', 'custom_answers.colour'],
      ['INVALID_FORMAT', 'custom_answers.guests'],
      ['VALIDATION_ERROR', 'custom_answers.topic'],
    ]);
  });

  it('says why a phone answer is refused: its shape, or the country that has no such number', () => {
    expect(checkAnswers(questions, { callback: '+11234567890' }, false)).toEqual([
      {
        code: 'INVALID_FORMAT',
        field: 'custom_answers.callback',
        message: 'custom_answers.callback: +11234567890 is not a valid US number',
      },
    ]);
    expect(checkAnswers(questions, { callback: '555-0100' }, false)[0].message).toBe(
      'custom_answers.callback must be a phone number in E.164 format (+ and 8 to 15 digits)',
    );
  });

  it('finds repeated question names', () => {
    expect(checkQuestions([questions[0], questions[0]])).toEqual([
      expect.objectContaining({ field: 'custom_questions.1.name' }),
    ]);
  });

  it('parses calendar days only', () => {
    expect(parseDay('2026-11-22')?.toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(parseDay('2026-11-31')).toBeNull();
  });
});
