import { asText } from '../steps/references';
type Obj = Record<string, unknown>;

const num = (v: unknown) =>
  typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
const present = (v: unknown) => v !== undefined && v !== null && v !== '';

function compare(left: unknown, op: string, right: unknown): boolean {
  switch (op) {
    case 'eq':
      return left === right || String(left) === String(right);
    case 'ne':
      return !(left === right || String(left) === String(right));
    case 'contains':
      if (Array.isArray(left)) return left.some((x) => String(x) === String(right));
      return asText(left).toLowerCase().includes(asText(right).toLowerCase());
    case 'gt':
      return num(left) > num(right);
    case 'gte':
      return num(left) >= num(right);
    case 'lt':
      return num(left) < num(right);
    case 'lte':
      return num(left) <= num(right);
    case 'exists':
      return present(left);
    case 'not_exists':
      return !present(left);
    default:
      return false;
  }
}

/** A condition step on its rendered config: `{result}`. */
export function evaluateCondition(config: Obj): { result: boolean } {
  const list = Array.isArray(config.conditions) ? (config.conditions as Obj[]) : [];
  const results = list.map((c) => compare(c.left, String(c.op), c.right));
  return { result: config.match === 'any' ? results.some(Boolean) : results.every(Boolean) };
}
