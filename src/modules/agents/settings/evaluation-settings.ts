import { AppException } from '@/common/errors/app.exception';
import { isSupportedLanguage, SUPPORTED_LANGUAGE_MESSAGE } from '@/common/validation/languages';

export const FEATURE_TYPES = ['boolean', 'score', 'label', 'text'] as const;
export type FeatureType = (typeof FEATURE_TYPES)[number];

export interface EvaluationFeature {
  enabled: boolean;
  description: string;
  type: FeatureType;
  prompt?: string;
  labels?: string[];
}

export interface EvaluationSettings {
  is_active: boolean;
  report_language: string;
  sessionization: { timeout_minutes: number };
  text: Record<string, EvaluationFeature>;
  voice: Record<string, EvaluationFeature>;
}

const block = (): Record<string, EvaluationFeature> => ({
  success_evaluation_prompt: {
    enabled: true,
    description: 'Did the conversation reach its goal? Answer true or false following the prompt.',
    prompt: '',
    type: 'boolean',
  },
  summary_prompt: {
    enabled: true,
    description: 'Summarise the session for a human reader in the report language.',
    type: 'text',
  },
});

/** The factory default of the contract: active, English, 30 minutes, success and summary in both blocks. */
export function factoryEvaluationSettings(): EvaluationSettings {
  return {
    is_active: true,
    report_language: 'en',
    sessionization: { timeout_minutes: 30 },
    text: block(),
    voice: block(),
  };
}

const FEATURE_KEY = /^[a-z][a-z0-9_]{0,62}$/;
export const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
/** A BCP 47 tag of this shape is far shorter in practice; the cap keeps stored settings small. */
export const LANGUAGE_MAX = 35;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (
  field: string,
  message: string,
  code: 'INVALID_FORMAT' | 'VALIDATION_ERROR' = 'INVALID_FORMAT',
) => AppException.invalid(field, `${field} ${message}`, code);

function mergeFeature(
  path: string,
  base: EvaluationFeature | undefined,
  patch: unknown,
): EvaluationFeature | undefined {
  if (patch === null) return undefined; // null removes a feature
  if (!isObject(patch)) throw fail(path, 'must be an object or null');
  const out: Record<string, unknown> = { ...(base ?? {}) };
  for (const [k, v] of Object.entries(patch)) {
    const f = `${path}.${k}`;
    if (k === 'enabled') {
      if (typeof v !== 'boolean') throw fail(f, 'must be a boolean');
    } else if (k === 'description' || k === 'prompt') {
      if (typeof v !== 'string') throw fail(f, 'must be a string');
      if (v.length > 20000) throw fail(f, 'must be at most 20000 characters');
    } else if (k === 'type') {
      if (!FEATURE_TYPES.includes(v as FeatureType))
        throw fail(f, `must be one of ${FEATURE_TYPES.join(', ')}`);
    } else if (k === 'labels') {
      if (!Array.isArray(v) || v.some((l) => typeof l !== 'string' || !l.trim()) || v.length > 50)
        throw fail(f, 'must be an array of up to 50 non-empty strings');
    } else continue; // unknown keys are ignored, as everywhere
    out[k] = v;
  }
  if (out.type === undefined) throw fail(`${path}.type`, 'is required for a new feature', 'VALIDATION_ERROR');
  if (out.description === undefined) out.description = '';
  if (out.enabled === undefined) out.enabled = true;
  if (out.type === 'label' && !(Array.isArray(out.labels) && out.labels.length))
    throw fail(`${path}.labels`, 'must list the labels of a label feature', 'VALIDATION_ERROR');
  if (out.type !== 'label') delete out.labels;
  return out as unknown as EvaluationFeature;
}

/**
 * Merges a PUT body into settings: top-level keys replace, `sessionization` and every feature of `text` and
 * `voice` merge key by key, a feature set to null is removed. Throws 422 naming the first bad field.
 */
export function mergeEvaluationSettings(base: EvaluationSettings, patch: unknown): EvaluationSettings {
  if (!isObject(patch)) throw fail('body', 'must be a JSON object');
  const out: EvaluationSettings = structuredClone(base);
  if ('is_active' in patch && patch.is_active !== undefined) {
    if (typeof patch.is_active !== 'boolean') throw fail('is_active', 'must be a boolean');
    out.is_active = patch.is_active;
  }
  if ('report_language' in patch && patch.report_language !== undefined) {
    const lang = patch.report_language;
    if (typeof lang !== 'string' || lang.length > LANGUAGE_MAX || !LANGUAGE.test(lang))
      throw fail('report_language', 'must be a language code such as en or pt-BR');
    if (!isSupportedLanguage(lang))
      throw fail('report_language', SUPPORTED_LANGUAGE_MESSAGE, 'VALIDATION_ERROR');
    out.report_language = lang;
  }
  if ('sessionization' in patch && patch.sessionization !== undefined) {
    if (!isObject(patch.sessionization)) throw fail('sessionization', 'must be an object');
    const t = patch.sessionization.timeout_minutes;
    if (t !== undefined) {
      // Fractions are allowed (0.5 is 30 seconds) down to 0.01 minute; a week at most.
      if (typeof t !== 'number' || !Number.isFinite(t) || t < 0.01 || t > 10080)
        throw fail('sessionization.timeout_minutes', 'must be a number of minutes from 0.01 to 10080');
      out.sessionization = { ...out.sessionization, timeout_minutes: t };
    }
  }
  for (const name of ['text', 'voice'] as const) {
    const blockPatch = patch[name];
    if (blockPatch === undefined) continue;
    if (!isObject(blockPatch)) throw fail(name, 'must be an object');
    for (const [key, featurePatch] of Object.entries(blockPatch)) {
      if (!FEATURE_KEY.test(key))
        throw fail(`${name}.${key}`, 'is not a feature name (lowercase snake_case)');
      const merged = mergeFeature(`${name}.${key}`, out[name][key], featurePatch);
      if (merged) out[name][key] = merged;
      else delete out[name][key];
    }
  }
  return out;
}
