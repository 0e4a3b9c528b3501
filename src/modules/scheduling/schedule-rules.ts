import { isEmail } from 'class-validator';
import { FieldError } from '@/common/errors/app.exception';
import { fieldMessage, phoneNumberProblem } from '@/common/validation/validators';
import { CustomQuestion, WEEKDAYS, WeeklyHours } from './schedule.entity';

const TIME_RE = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `{mon: [["09:00", "17:00"]], ...}`: known weekdays, `HH:MM` pairs with start before end, no overlaps in a day. */
export function checkWeeklyHours(value: unknown, path = 'weekly_hours'): FieldError[] {
  const bad = (field: string, message: string): FieldError[] => [
    { code: 'INVALID_FORMAT', field, message: `${field} ${message}` },
  ];
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return bad(path, 'must be an object keyed by weekday (mon to sun)');
  for (const [day, intervals] of Object.entries(value as Record<string, unknown>)) {
    const dayPath = `${path}.${day}`;
    if (!(WEEKDAYS as readonly string[]).includes(day)) return bad(dayPath, 'is not a weekday (mon to sun)');
    if (!Array.isArray(intervals)) return bad(dayPath, 'must be a list of ["HH:MM", "HH:MM"] intervals');
    const seen: [string, string][] = [];
    for (let i = 0; i < intervals.length; i++) {
      const item: unknown = intervals[i];
      const itemPath = `${dayPath}.${i}`;
      if (
        !Array.isArray(item) ||
        item.length !== 2 ||
        !item.every((t) => typeof t === 'string' && TIME_RE.test(t))
      )
        return bad(itemPath, 'must be a pair of times ["HH:MM", "HH:MM"]');
      const [start, end] = item as [string, string];
      if (start >= end) return bad(itemPath, 'must end after it starts');
      if (seen.some(([s, e]) => start < e && s < end))
        return bad(itemPath, 'overlaps another interval of the day');
      seen.push([start, end]);
    }
  }
  return [];
}

/** Keeps the weekdays in calendar order and each day's intervals sorted. */
export function normalizeWeeklyHours(value: WeeklyHours): WeeklyHours {
  const out: WeeklyHours = {};
  for (const day of WEEKDAYS) {
    const list = value[day];
    if (list) out[day] = [...list].sort((a, b) => a[0].localeCompare(b[0]));
  }
  return out;
}

/** Question names are unique in a schedule (answers are keyed by them). */
export function checkQuestions(questions: CustomQuestion[], path = 'custom_questions'): FieldError[] {
  const names = new Set<string>();
  for (let i = 0; i < questions.length; i++) {
    const field = `${path}.${i}.name`;
    if (names.has(questions[i].name))
      return [{ code: 'INVALID_FORMAT', field, message: `${field} repeats the name of another question` }];
    names.add(questions[i].name);
  }
  return [];
}

function isCalendarDate(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const m = DATE_RE.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

function answerProblem(q: CustomQuestion, v: unknown): string | null {
  switch (q.type) {
    case 'text':
    case 'long_text':
      return typeof v === 'string' && v.length <= 10_000 ? null : 'must be a string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? null : 'must be a number';
    case 'boolean':
      return typeof v === 'boolean' ? null : 'must be a boolean';
    case 'date':
      return isCalendarDate(v) ? null : 'must be a date of the form YYYY-MM-DD';
    case 'email':
      return typeof v === 'string' && isEmail(v) ? null : 'must be an email address';
    case 'phone':
      return phoneNumberProblem(v);
  }
}

/**
 * Answers to the schedule's questions: keys are question names (another key is VALIDATION_ERROR), values fit
 * the question's type (INVALID_FORMAT); with `requireAll`, a required question without an answer is
 * VALIDATION_ERROR.
 */
export function checkAnswers(
  questions: CustomQuestion[],
  answers: Record<string, unknown>,
  requireAll: boolean,
  path = 'custom_answers',
): FieldError[] {
  const errors: FieldError[] = [];
  const byName = new Map(questions.map((q) => [q.name, q]));
  for (const [key, value] of Object.entries(answers)) {
    const field = `${path}.${key}`;
    const q = byName.get(key);
    if (!q)
      errors.push({ code: 'VALIDATION_ERROR', field, message: `${field} is not a question of the schedule` });
    else {
      const problem = answerProblem(q, value);
      if (problem) errors.push({ code: 'INVALID_FORMAT', field, message: fieldMessage(field, problem) });
    }
  }
  if (requireAll)
    for (const q of questions)
      if (q.required && (answers[q.name] === undefined || answers[q.name] === null || answers[q.name] === ''))
        errors.push({
          code: 'VALIDATION_ERROR',
          field: `${path}.${q.name}`,
          message: `${path}.${q.name} is required`,
        });
  return errors;
}

/** `YYYY-MM-DD` (a real date) to midnight UTC, or null. */
export function parseDay(value: string): Date | null {
  return isCalendarDate(value) ? new Date(`${value}T00:00:00.000Z`) : null;
}
