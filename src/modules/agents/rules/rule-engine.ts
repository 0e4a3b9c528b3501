import type { ClassificationResult, IntentCandidate } from '@/providers/llm/language-model.port';
import { normalizeText } from '@/providers/llm/similarity-classifier';
import type { RuleChannel } from '../collections/agent-rules.entity';
import type { GuardRuleResponse, RoutingRuleResponse } from '../dto/agent.response';

export interface RuleTraceEntry {
  rule_uuid: string;
  kind: 'guard' | 'routing';
  /** The rule is active, has the fields its mode needs and (guards) covers the channel. */
  eligible: boolean;
  reason: string;
  matched: boolean;
  /** Similarity or model score of the intent check, 1 for a literal match, null when nothing was scored. */
  score: number | null;
}

export interface RuleDestination {
  type: string | null;
  value: string | null;
  agent_uuid: string | null;
}

export interface RuleDecision {
  decision: 'guard' | 'routing' | 'none';
  rule: GuardRuleResponse | RoutingRuleResponse | null;
  /** Guards: `forward` or `end_conversation`; routing: the transfer type (`transfer_call` when unset). */
  action: string | null;
  say: string | null;
  destination: RuleDestination | null;
  trace: RuleTraceEntry[];
  /** How intents were classified, when any were: `llm` or `local`. */
  classifier: ClassificationResult['method'] | null;
  classifier_note: string | null;
}

export interface RuleSet {
  guard_rules: GuardRuleResponse[];
  routing_rules: RoutingRuleResponse[];
}

/** The classifier the engine calls at most twice (once for guards, once for routing); injected so the engine stays pure. */
export type Classify = (utterance: string, candidates: IntentCandidate[]) => Promise<ClassificationResult>;

const filled = (s: string | null | undefined): s is string => typeof s === 'string' && s.trim().length > 0;
const phrasesOf = (list: string[] | null | undefined): string[] => (list ?? []).filter(filled);

/** Tokens of letters and digits, lower case, accents and punctuation dropped. */
function words(text: string): string[] {
  const n = normalizeText(text);
  return n ? n.split(' ') : [];
}

/** The keyword occurs in the utterance as whole words (case and punctuation ignored). */
export function containsKeyword(utterance: string, keyword: string): boolean {
  const k = words(keyword);
  const u = words(utterance);
  if (!k.length || k.length > u.length) return false;
  for (let i = 0; i + k.length <= u.length; i++) if (k.every((w, j) => u[i + j] === w)) return true;
  return false;
}

/** Routing rules in evaluation order: ascending priority, ties in the given (insertion) order. */
export function routingOrder(rules: RoutingRuleResponse[]): RoutingRuleResponse[] {
  return rules
    .map((rule, index) => ({ rule, index }))
    .sort((a, b) => a.rule.priority - b.rule.priority || a.index - b.index)
    .map((x) => x.rule);
}

function guardMissing(rule: GuardRuleResponse): string[] {
  const missing: string[] = [];
  if (!filled(rule.when_condition)) missing.push('when_condition');
  if (!phrasesOf(rule.example_phrases).length) missing.push('example_phrases');
  return missing;
}

function routingMissing(rule: RoutingRuleResponse): string[] {
  const missing: string[] = [];
  if (rule.detection_mode === 'exact' || rule.detection_mode === 'both') {
    if (rule.detection_mode === 'exact' && !filled(rule.trigger_keyword)) missing.push('trigger_keyword');
  }
  if (rule.detection_mode === 'intent' || rule.detection_mode === 'both') {
    if (!filled(rule.ai_prompt)) missing.push('ai_prompt');
    if (!phrasesOf(rule.phrases).length) missing.push('phrases');
  }
  return missing;
}

const destinationOf = (r: GuardRuleResponse | RoutingRuleResponse): RuleDestination | null =>
  r.destination_type || r.destination || r.destination_agent_uuid
    ? { type: r.destination_type, value: r.destination, agent_uuid: r.destination_agent_uuid }
    : null;

/**
 * Runtime rules 1 to 4 of the specification: guards first (first match wins, routing bypassed), then routing
 * rules by ascending priority (ties by insertion); inactive or incomplete rules never fire; `exact` needs the
 * trigger keyword as whole words, `intent` asks the classifier, `both` tries the keyword first. Guards apply
 * only to their `selected_channels` (none selected: every channel). No side effects.
 */
export async function evaluateRules(
  rules: RuleSet,
  utterance: string,
  channel: RuleChannel,
  classify: Classify,
): Promise<RuleDecision> {
  const trace: RuleTraceEntry[] = [];
  let classifier: RuleDecision['classifier'] = null;
  let note: string | null = null;
  const remember = (result: ClassificationResult) => {
    classifier = result.method;
    note = result.fallbackReason ?? note;
  };

  // Guards: decide eligibility, classify every eligible guard in one call, then take the first match in order.
  const guardEligible = new Map<string, string>();
  for (const g of rules.guard_rules) {
    if (!g.is_active) guardEligible.set(g.uuid, 'inactive');
    else if (guardMissing(g).length) guardEligible.set(g.uuid, `missing ${guardMissing(g).join(', ')}`);
    else if (g.selected_channels.length && !g.selected_channels.includes(channel))
      guardEligible.set(g.uuid, `channel ${channel} not selected`);
  }
  const guardCandidates = rules.guard_rules
    .filter((g) => !guardEligible.has(g.uuid))
    .map((g) => ({
      id: g.uuid,
      description: g.when_condition ?? '',
      examples: phrasesOf(g.example_phrases),
    }));
  const guardScores = new Map<string, { score: number; matched: boolean }>();
  if (guardCandidates.length && utterance.trim()) {
    const result = await classify(utterance, guardCandidates);
    remember(result);
    for (const s of result.scores) guardScores.set(s.id, s);
  }
  let winner: GuardRuleResponse | null = null;
  for (const g of rules.guard_rules) {
    const ineligible = guardEligible.get(g.uuid);
    if (ineligible) {
      trace.push({
        rule_uuid: g.uuid,
        kind: 'guard',
        eligible: false,
        reason: ineligible,
        matched: false,
        score: null,
      });
      continue;
    }
    const s = guardScores.get(g.uuid) ?? { score: 0, matched: false };
    if (winner) {
      trace.push({
        rule_uuid: g.uuid,
        kind: 'guard',
        eligible: true,
        reason: 'not evaluated: an earlier guard matched',
        matched: false,
        score: s.score,
      });
      continue;
    }
    trace.push({
      rule_uuid: g.uuid,
      kind: 'guard',
      eligible: true,
      reason: s.matched ? 'condition matched' : 'condition not matched',
      matched: s.matched,
      score: s.score,
    });
    if (s.matched) winner = g;
  }

  const routing = routingOrder(rules.routing_rules);
  if (winner) {
    for (const r of routing)
      trace.push({
        rule_uuid: r.uuid,
        kind: 'routing',
        eligible: r.is_active && !routingMissing(r).length,
        reason: 'not evaluated: a guard fired',
        matched: false,
        score: null,
      });
    return {
      decision: 'guard',
      rule: winner,
      action: winner.then_action,
      say: winner.then_action === 'forward' ? winner.say_before_forwarding : winner.say_before_end,
      destination: winner.then_action === 'forward' ? destinationOf(winner) : null,
      trace,
      classifier,
      classifier_note: note,
    };
  }

  // Routing: literal checks need no model; intent checks are classified together, lazily, once.
  const eligibleRouting = routing.filter((r) => r.is_active && !routingMissing(r).length);
  let routingScores: Map<string, { score: number; matched: boolean }> | null = null;
  const intentScore = async (r: RoutingRuleResponse) => {
    if (!routingScores) {
      routingScores = new Map();
      const candidates = eligibleRouting
        .filter((x) => x.detection_mode !== 'exact')
        .map((x) => ({ id: x.uuid, description: x.ai_prompt ?? '', examples: phrasesOf(x.phrases) }));
      if (candidates.length && utterance.trim()) {
        const result = await classify(utterance, candidates);
        remember(result);
        for (const s of result.scores) routingScores.set(s.id, s);
      }
    }
    return routingScores.get(r.uuid) ?? { score: 0, matched: false };
  };

  let chosen: RoutingRuleResponse | null = null;
  for (const r of routing) {
    if (!r.is_active || routingMissing(r).length) {
      const reason = !r.is_active ? 'inactive' : `missing ${routingMissing(r).join(', ')}`;
      trace.push({
        rule_uuid: r.uuid,
        kind: 'routing',
        eligible: false,
        reason,
        matched: false,
        score: null,
      });
      continue;
    }
    if (chosen) {
      trace.push({
        rule_uuid: r.uuid,
        kind: 'routing',
        eligible: true,
        reason: 'not evaluated: an earlier rule matched',
        matched: false,
        score: null,
      });
      continue;
    }
    const keyword = r.detection_mode !== 'intent' && filled(r.trigger_keyword) ? r.trigger_keyword : null;
    if (keyword && containsKeyword(utterance, keyword)) {
      trace.push({
        rule_uuid: r.uuid,
        kind: 'routing',
        eligible: true,
        reason: 'keyword matched',
        matched: true,
        score: 1,
      });
      chosen = r;
      continue;
    }
    if (r.detection_mode === 'exact') {
      trace.push({
        rule_uuid: r.uuid,
        kind: 'routing',
        eligible: true,
        reason: 'keyword not found',
        matched: false,
        score: 0,
      });
      continue;
    }
    const s = await intentScore(r);
    const prefix = keyword ? 'keyword not found; ' : '';
    trace.push({
      rule_uuid: r.uuid,
      kind: 'routing',
      eligible: true,
      reason: `${prefix}${s.matched ? 'intent matched' : 'intent not matched'}`,
      matched: s.matched,
      score: s.score,
    });
    if (s.matched) chosen = r;
  }

  if (!chosen)
    return {
      decision: 'none',
      rule: null,
      action: null,
      say: null,
      destination: null,
      trace,
      classifier,
      classifier_note: note,
    };
  const picked: RoutingRuleResponse = chosen;
  return {
    decision: 'routing',
    rule: picked,
    action: picked.transfer_type ?? 'transfer_call',
    say: picked.voice_response,
    destination: destinationOf(picked),
    trace,
    classifier,
    classifier_note: note,
  };
}
