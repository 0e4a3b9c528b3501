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
  if (rule.detection_mode === 'exact' && !filled(rule.trigger_keyword)) missing.push('trigger_keyword');
  if (rule.detection_mode === 'intent' || rule.detection_mode === 'both') {
    if (!filled(rule.ai_prompt)) missing.push('ai_prompt');
    if (!phrasesOf(rule.phrases).length) missing.push('phrases');
  }
  return missing;
}

/** Why a guard can never fire on this channel, or null when it is eligible. */
function guardIneligibility(g: GuardRuleResponse, channel: RuleChannel): string | null {
  if (!g.is_active) return 'inactive';
  if (guardMissing(g).length) return `missing ${guardMissing(g).join(', ')}`;
  if (g.selected_channels.length && !g.selected_channels.includes(channel))
    return `channel ${channel} not selected`;
  return null;
}

/** Why a routing rule can never fire, or null when it is eligible. */
function routingIneligibility(r: RoutingRuleResponse): string | null {
  if (!r.is_active) return 'inactive';
  return routingMissing(r).length ? `missing ${routingMissing(r).join(', ')}` : null;
}

const destinationOf = (r: GuardRuleResponse | RoutingRuleResponse): RuleDestination | null =>
  r.destination_type || r.destination || r.destination_agent_uuid
    ? { type: r.destination_type, value: r.destination, agent_uuid: r.destination_agent_uuid }
    : null;

type Score = { score: number; matched: boolean };
const NO_MATCH: Score = { score: 0, matched: false };

/** The trace of one evaluation, and how the classifier answered when it was asked. */
class RuleTrace {
  private readonly entries: RuleTraceEntry[] = [];
  private classifier: RuleDecision['classifier'] = null;
  private note: string | null = null;

  add(
    kind: RuleTraceEntry['kind'],
    rule_uuid: string,
    eligible: boolean,
    reason: string,
    s?: Partial<Score>,
  ): void {
    this.entries.push({
      rule_uuid,
      kind,
      eligible,
      reason,
      matched: s?.matched ?? false,
      score: s?.score ?? null,
    });
  }

  /** Classifies the utterance against the candidates in one call (none for an empty utterance or no candidate). */
  async classify(
    classify: Classify,
    utterance: string,
    candidates: IntentCandidate[],
  ): Promise<Map<string, Score>> {
    const scores = new Map<string, Score>();
    if (!candidates.length || !utterance.trim()) return scores;
    const result = await classify(utterance, candidates);
    this.classifier = result.method;
    this.note = result.fallbackReason ?? this.note;
    for (const s of result.scores) scores.set(s.id, s);
    return scores;
  }

  decide(d: Pick<RuleDecision, 'decision' | 'rule' | 'action' | 'say' | 'destination'>): RuleDecision {
    return { ...d, trace: this.entries, classifier: this.classifier, classifier_note: this.note };
  }
}

/** Guards: eligibility first, every eligible guard classified in one call, then the first match in order wins. */
async function guardStep(
  guards: GuardRuleResponse[],
  utterance: string,
  channel: RuleChannel,
  classify: Classify,
  trace: RuleTrace,
): Promise<GuardRuleResponse | null> {
  const ineligible = new Map(guards.map((g) => [g.uuid, guardIneligibility(g, channel)]));
  const candidates = guards
    .filter((g) => !ineligible.get(g.uuid))
    .map((g) => ({
      id: g.uuid,
      description: g.when_condition ?? '',
      examples: phrasesOf(g.example_phrases),
    }));
  const scores = await trace.classify(classify, utterance, candidates);
  let winner: GuardRuleResponse | null = null;
  for (const g of guards) {
    const reason = ineligible.get(g.uuid);
    const s = scores.get(g.uuid) ?? NO_MATCH;
    if (reason) trace.add('guard', g.uuid, false, reason);
    else if (winner)
      trace.add('guard', g.uuid, true, 'not evaluated: an earlier guard matched', { score: s.score });
    else {
      trace.add('guard', g.uuid, true, s.matched ? 'condition matched' : 'condition not matched', s);
      if (s.matched) winner = g;
    }
  }
  return winner;
}

/** Routing, in priority order: literal checks need no model; intent checks are classified together, lazily, once. */
async function routingStep(
  routing: RoutingRuleResponse[],
  utterance: string,
  classify: Classify,
  trace: RuleTrace,
): Promise<RoutingRuleResponse | null> {
  let scores: Map<string, Score> | null = null;
  const intentScore = async (r: RoutingRuleResponse): Promise<Score> => {
    scores ??= await trace.classify(
      classify,
      utterance,
      routing
        .filter((x) => !routingIneligibility(x) && x.detection_mode !== 'exact')
        .map((x) => ({ id: x.uuid, description: x.ai_prompt ?? '', examples: phrasesOf(x.phrases) })),
    );
    return scores.get(r.uuid) ?? NO_MATCH;
  };
  let chosen: RoutingRuleResponse | null = null;
  for (const r of routing) {
    const reason = routingIneligibility(r);
    if (reason) {
      trace.add('routing', r.uuid, false, reason);
      continue;
    }
    if (chosen) {
      trace.add('routing', r.uuid, true, 'not evaluated: an earlier rule matched');
      continue;
    }
    const keyword = r.detection_mode !== 'intent' && filled(r.trigger_keyword) ? r.trigger_keyword : null;
    if (keyword && containsKeyword(utterance, keyword)) {
      trace.add('routing', r.uuid, true, 'keyword matched', { matched: true, score: 1 });
      chosen = r;
    } else if (r.detection_mode === 'exact')
      trace.add('routing', r.uuid, true, 'keyword not found', { score: 0 });
    else {
      const s = await intentScore(r);
      const prefix = keyword ? 'keyword not found; ' : '';
      trace.add(
        'routing',
        r.uuid,
        true,
        `${prefix}${s.matched ? 'intent matched' : 'intent not matched'}`,
        s,
      );
      if (s.matched) chosen = r;
    }
  }
  return chosen;
}

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
  const trace = new RuleTrace();
  const routing = routingOrder(rules.routing_rules);
  const guard = await guardStep(rules.guard_rules, utterance, channel, classify, trace);
  if (guard) {
    for (const r of routing)
      trace.add('routing', r.uuid, !routingIneligibility(r), 'not evaluated: a guard fired');
    const forward = guard.then_action === 'forward';
    return trace.decide({
      decision: 'guard',
      rule: guard,
      action: guard.then_action,
      say: forward ? guard.say_before_forwarding : guard.say_before_end,
      destination: forward ? destinationOf(guard) : null,
    });
  }
  const chosen = await routingStep(routing, utterance, classify, trace);
  if (!chosen)
    return trace.decide({ decision: 'none', rule: null, action: null, say: null, destination: null });
  return trace.decide({
    decision: 'routing',
    rule: chosen,
    action: chosen.transfer_type ?? 'transfer_call',
    say: chosen.voice_response,
    destination: destinationOf(chosen),
  });
}
