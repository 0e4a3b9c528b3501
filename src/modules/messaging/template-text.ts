import { AppException } from '@/common/errors/app.exception';

const PLACEHOLDER = /\{\{\s*(\d+)\s*\}\}/g;
const TOKEN = /\{\{\s*(contact|custom|variables)\.([A-Za-z0-9_]{1,64})\s*\}\}/g;

interface Component {
  type?: unknown;
  text?: unknown;
}

/**
 * A template's body: exactly one BODY component whose placeholders are `{{1}}`..`{{n}}` without gaps. Answers the
 * body text and n; anything else is 422 on `components`.
 */
export function templateBody(components: unknown): { content: string; parameterCount: number } {
  const list = Array.isArray(components) ? (components as Component[]) : [];
  const bodies = list.filter((c) => c && typeof c === 'object' && String(c.type).toUpperCase() === 'BODY');
  if (bodies.length !== 1 || typeof bodies[0].text !== 'string' || !bodies[0].text)
    throw AppException.invalid('components', 'components must hold exactly one BODY component with text');
  const content = bodies[0].text;
  const numbers = [...new Set([...content.matchAll(PLACEHOLDER)].map((m) => Number(m[1])))].sort(
    (a, b) => a - b,
  );
  if (numbers.some((n, i) => n !== i + 1))
    throw AppException.invalid('components', 'BODY placeholders must be {{1}}, {{2}}, ... without gaps');
  return { content, parameterCount: numbers.length };
}

/** The body with `{{n}}` replaced by the n-th value. */
export function fillBody(content: string, values: string[]): string {
  return content.replace(PLACEHOLDER, (whole, n: string) => values[Number(n) - 1] ?? whole);
}

export interface TokenContext {
  contact: Record<string, unknown>;
  custom: Record<string, unknown>;
  variables: Record<string, unknown>;
}

/** Replaces `{{contact.x}}`, `{{custom.x}}`, `{{variables.x}}` with the context's values ('' when missing). */
export function renderTokens(text: string, ctx: TokenContext): string {
  return text.replace(TOKEN, (_whole, scope: keyof TokenContext, key: string) => {
    const value = ctx[scope][key];
    if (value === undefined || value === null) return '';
    return typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean);
  });
}

/** Sample values shown in a setting's `content`. */
export const SAMPLE_CONTEXT: TokenContext = {
  contact: { name: 'Ada', surname: 'Lovelace', email: 'ada@example.com', phone_number: '+14155552671' },
  custom: new Proxy({}, { get: (_t, key) => `[${String(key)}]` }),
  variables: new Proxy({}, { get: (_t, key) => `[${String(key)}]` }),
};

/** Every placeholder 1..n needs a value: 422 VALIDATION_ERROR on `params.body.<n>`. */
export function checkBodyParams(body: Record<string, string>, count: number): string[] {
  const values: string[] = [];
  for (let n = 1; n <= count; n++) {
    const v = body[String(n)];
    if (typeof v !== 'string' || !v.trim())
      throw AppException.invalid(`params.body.${n}`, `params.body.${n} needs a value`, 'VALIDATION_ERROR');
    if (v.length > 1024)
      throw AppException.invalid(`params.body.${n}`, `params.body.${n} must be at most 1024 characters`);
    values.push(v);
  }
  return values;
}
