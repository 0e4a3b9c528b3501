import type { ChatMessage } from '@/providers/llm/language-model.port';
import type { EvaluationFeature, FeatureType } from '@/modules/agents/settings/evaluation-settings';

export interface TranscriptLine {
  sender: string;
  content: string;
}

const SHAPES: Record<FeatureType, string> = {
  boolean: '{"value": true or false, "reason": "<one sentence>"}',
  score: '{"value": <number from 0 to 10>, "score": <the same number>, "reason": "<one sentence>"}',
  label: '{"value": "<one of the labels>", "label": "<the same label>", "reason": "<one sentence>"}',
  text: '{"value": "<your text>", "reason": "<one sentence>"}',
};

/** One feature, one call: the feature's description is the instruction, the transcript the material. */
export function buildFeatureMessages(
  feature: string,
  f: EvaluationFeature,
  transcript: TranscriptLine[],
  reportLanguage: string,
): ChatMessage[] {
  const lines = [
    'You evaluate a finished customer conversation between a customer and an AI agent.',
    `Evaluation "${feature}": ${f.description || feature}`,
  ];
  if (f.prompt?.trim()) lines.push(`Criterion: ${f.prompt.trim()}`);
  if (f.type === 'label' && f.labels?.length) lines.push(`Labels: ${f.labels.join(', ')}`);
  if (f.type === 'text') lines.push(`Write the value in this language: ${reportLanguage}.`);
  lines.push(`Answer with one JSON object only, of the form ${SHAPES[f.type]}.`);
  const text = transcript
    .map((t) => `${t.sender === 'customer' ? 'Customer' : 'Agent'}: ${t.content}`)
    .join('\n');
  return [
    { role: 'system', content: lines.join('\n') },
    { role: 'user', content: `Transcript:\n${text || '(no messages)'}` },
  ];
}

export interface ParsedResult {
  value: boolean | number | string;
  reason: string | null;
  score: number | null;
  label: string | null;
}

/** Checks the model's answer against the feature type; a message explains what was wrong. */
export function parseFeatureAnswer(raw: string, f: EvaluationFeature): ParsedResult | { error: string } {
  let obj: unknown;
  try {
    obj = JSON.parse(raw);
  } catch {
    return { error: 'the model answer is not JSON' };
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
    return { error: 'the model answer is not a JSON object' };
  const o = obj as Record<string, unknown>;
  const reason = typeof o.reason === 'string' ? o.reason : null;
  const v = o.value;
  switch (f.type) {
    case 'boolean':
      if (typeof v === 'boolean') return { value: v, reason, score: null, label: null };
      if (v === 'true' || v === 'false') return { value: v === 'true', reason, score: null, label: null };
      return { error: 'value must be true or false' };
    case 'score': {
      const n = typeof v === 'number' ? v : typeof o.score === 'number' ? o.score : NaN;
      if (!Number.isFinite(n) || n < 0 || n > 10) return { error: 'value must be a number from 0 to 10' };
      return { value: n, reason, score: Math.round(n * 100) / 100, label: null };
    }
    case 'label': {
      const l = typeof v === 'string' ? v : typeof o.label === 'string' ? o.label : null;
      if (l === null) return { error: 'value must be a label' };
      const match = (f.labels ?? []).find((x) => x.toLowerCase() === l.trim().toLowerCase());
      if (f.labels?.length && !match) return { error: `value must be one of ${f.labels.join(', ')}` };
      return { value: match ?? l, reason, score: null, label: match ?? l };
    }
    case 'text':
      if (typeof v !== 'string' || !v.trim()) return { error: 'value must be a non-empty string' };
      return { value: v.trim(), reason, score: null, label: null };
  }
}
