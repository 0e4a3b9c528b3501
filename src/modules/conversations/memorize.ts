import type { Channel } from './channels';
import type {
  FieldAnalyzerView,
  MemorizedValue,
  MemorizeSettingsShape,
  StageAnalyzerView,
} from './agent-context';

export type FieldAccess = 'read' | 'read_write';

/** What memorize allows for one conversation, read from the settings keys documented in docs/api.md. */
export interface MemorizePlan {
  active: boolean;
  /** Contact fields (`name`, `email`, `custom_fields.company`, ...) the reply prompt may include. */
  readable: string[];
  /** Contact fields one model call may update after a session. */
  writable: string[];
  summaries: number;
}

/** The most earlier-session summaries a reply's prompt carries. */
export const MAX_SUMMARIES = 10;

export function memorizePlan(settings: MemorizeSettingsShape, channel: Channel): MemorizePlan {
  const channelOn = settings.channel_settings?.[channel] !== false;
  const active = settings.is_active && channelOn;
  const fields = Object.entries(settings.contact_field_settings ?? {}).filter(
    (e): e is [string, FieldAccess] => e[1] === 'read' || e[1] === 'read_write',
  );
  const conv = settings.conversation_settings ?? {};
  const remember = conv.remember_summaries !== false;
  const max =
    typeof conv.max_summaries === 'number' && Number.isInteger(conv.max_summaries) ? conv.max_summaries : 3;
  return {
    active,
    readable: active ? fields.map(([k]) => k) : [],
    writable: active ? fields.filter(([, v]) => v === 'read_write').map(([k]) => k) : [],
    summaries: active && remember ? Math.max(0, Math.min(MAX_SUMMARIES, max)) : 0,
  };
}

/** Picks `name` or `custom_fields.x` out of a contact's fields. */
export function pickFields(contact: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const [head, sub] = key.split('.', 2);
    const value = sub ? (contact[head] as Record<string, unknown> | undefined)?.[sub] : contact[head];
    if (value !== undefined && value !== null && value !== '') out[key] = value;
  }
  return out;
}

const MAX_REASON = 1000;

/**
 * The key of the contact's pipeline stage: in `contact_field_settings` (`read_write` lets memorize move the contact
 * between stages) and in the model's answer (the value is a stage id).
 */
export const STAGE_FIELD = 'pipeline_stage';

const ANSWER_SHAPE =
  '{"value": string, "confidence": number from 0 to 1, "reason": where and how the customer stated it}';

/**
 * The extraction instruction: the fields asked for, each with its analyzer's goals and example values; and, when
 * stages are offered, which of them the contact now belongs to (each stage's id, name and its analyzer's goals, with
 * the stage the contact is in now).
 */
export function extractionPrompt(
  fields: string[],
  analyzers: Map<string, FieldAnalyzerView>,
  stages: StageAnalyzerView[] = [],
  currentStage: string | null = null,
): string {
  const parts: string[] = [];
  if (fields.length) {
    const lines = fields.map((f) => {
      const a = analyzers.get(f);
      const goals = a?.analysisGoals ? `: ${a.analysisGoals}` : '';
      const examples = a?.exampleValues ? ` (for example: ${a.exampleValues})` : '';
      return `- ${f}${goals}${examples}`;
    });
    parts.push(
      'From the conversation, extract what the customer said about themselves. Answer one JSON object with ' +
        `only these keys, and only those the customer clearly stated: ${fields.join(', ')}. Each value is an ` +
        `object ${ANSWER_SHAPE}.\nThe fields:\n${lines.join('\n')}`,
    );
  }
  if (stages.length) {
    const ask =
      `the key "${STAGE_FIELD}" only when the conversation clearly shows which pipeline stage the contact now ` +
      'belongs to, as {"value": the id of that stage, "confidence": number from 0 to 1, "reason": what in the ' +
      'conversation shows it}; leave the key out when no stage fits.';
    const lines = stages.map(
      (st) => `- ${st.stageId}: ${st.name}${st.analysisGoals ? ` (${st.analysisGoals})` : ''}`,
    );
    parts.push(
      (fields.length
        ? `Also add ${ask}`
        : `From the conversation, extract which pipeline stage the contact now belongs to. Answer one JSON object with ${ask}`) +
        `\n${currentStage === null ? 'The contact is in no stage yet.' : `The contact is now in the stage "${currentStage}".`}` +
        `\nThe stages (id: name (when the contact belongs there)):\n${lines.join('\n')}`,
    );
  }
  return parts.join('\n');
}

/** The stage an answer names: by id, or by a name only one offered stage has (case-insensitive). */
function stageNamed(value: string, stages: StageAnalyzerView[]): string | null {
  const v = value.toLowerCase();
  const byId = stages.find((s) => s.stageId === v);
  if (byId) return byId.stageId;
  const byName = stages.filter((s) => s.name.trim().toLowerCase() === v);
  return byName.length === 1 ? byName[0].stageId : null;
}

/**
 * The values of the model's answer for the fields asked: `{"key": {"value", "confidence", "reason"}}`, or a plain
 * string per key (no confidence, no reason). Empty values and other keys are dropped; confidence is clamped to 0–1.
 * With `stages`, `pipeline_stage` is read too, its value becoming the id of the offered stage it names (a stage not
 * offered, e.g. of another workspace, drops it).
 */
export function parseExtraction(
  parsed: unknown,
  fields: string[],
  stages: StageAnalyzerView[] = [],
): MemorizedValue[] {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
  const out: MemorizedValue[] = [];
  for (const [field, raw] of Object.entries(parsed as Record<string, unknown>)) {
    const isStage = field === STAGE_FIELD && stages.length > 0;
    if (!isStage && !fields.includes(field)) continue;
    const item =
      raw && typeof raw === 'object' && !Array.isArray(raw)
        ? (raw as Record<string, unknown>)
        : { value: raw };
    const value =
      typeof item.value === 'string'
        ? item.value.trim()
        : typeof item.value === 'number' || typeof item.value === 'boolean'
          ? String(item.value)
          : '';
    const stageId = isStage && value ? stageNamed(value, stages) : null;
    if (!value || (isStage && !stageId)) continue;
    const confidence =
      typeof item.confidence === 'number' && Number.isFinite(item.confidence)
        ? Math.round(Math.min(1, Math.max(0, item.confidence)) * 1000) / 1000
        : null;
    const reason =
      typeof item.reason === 'string' && item.reason.trim() ? item.reason.trim().slice(0, MAX_REASON) : null;
    out.push({ field, value: stageId ?? value, confidence, reason });
  }
  return out;
}
