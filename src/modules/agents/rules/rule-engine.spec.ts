import { classifyBySimilarity } from '@/providers/llm/similarity-classifier';
import type { GuardRuleResponse, RoutingRuleResponse } from '../dto/agent.response';
import { Classify, containsKeyword, evaluateRules, routingOrder } from './rule-engine';

const TS = '2026-01-01T00:00:00.000Z';
let n = 0;
const id = () => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}`;

function routing(over: Partial<RoutingRuleResponse> = {}): RoutingRuleResponse {
  return {
    uuid: id(),
    detection_mode: 'exact',
    trigger_keyword: null,
    department_name: null,
    phrases: [],
    ai_prompt: null,
    voice_response: null,
    voice_on_error: null,
    voice_on_success: null,
    destination_type: 'extension',
    destination: '200',
    destination_agent_uuid: null,
    transfer_type: null,
    transfer_config: {},
    priority: 1,
    is_active: true,
    created_at: TS,
    updated_at: TS,
    ...over,
  };
}

function guard(over: Partial<GuardRuleResponse> = {}): GuardRuleResponse {
  return {
    uuid: id(),
    name: 'guard',
    when_condition: 'The customer asks for a human',
    example_phrases: ['I want to speak to a human'],
    then_action: 'forward',
    selected_channels: [],
    say_before_forwarding: 'Connecting you.',
    say_before_end: 'Goodbye.',
    destination_type: 'extension',
    destination: '100',
    destination_agent_uuid: null,
    is_active: true,
    is_default: false,
    created_at: TS,
    updated_at: TS,
    ...over,
  };
}

const local: Classify = async (u, c) => ({ method: 'local', scores: classifyBySimilarity(u, c) });
/** Records what the engine asked the classifier. */
function spy(): { classify: Classify; calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    classify: async (u, c) => {
      calls.push(c.map((x) => x.id));
      return local(u, c);
    },
  };
}

describe('keyword matching', () => {
  it('is case- and punctuation-insensitive on whole words', () => {
    expect(containsKeyword('I need BILLING, please!', 'billing')).toBe(true);
    expect(containsKeyword('Talk to the sales-team now', 'sales team')).toBe(true);
    expect(containsKeyword('Where is my café?', 'cafe')).toBe(true);
  });

  it('does not match inside a word or an empty keyword', () => {
    expect(containsKeyword('rebilling is not what I want', 'billing')).toBe(false);
    expect(containsKeyword('anything', '  !! ')).toBe(false);
  });
});

describe('rule engine', () => {
  it('rule 1: routing by ascending priority, ties by insertion', async () => {
    const late = routing({ trigger_keyword: 'help', priority: 5 });
    const tieA = routing({ trigger_keyword: 'help', priority: 2 });
    const tieB = routing({ trigger_keyword: 'help', priority: 2 });
    expect(routingOrder([late, tieA, tieB]).map((r) => r.uuid)).toEqual([tieA.uuid, tieB.uuid, late.uuid]);
    const out = await evaluateRules(
      { guard_rules: [], routing_rules: [late, tieA, tieB] },
      'help me',
      'phone',
      local,
    );
    expect(out.decision).toBe('routing');
    expect(out.rule?.uuid).toBe(tieA.uuid);
    expect(out.trace.map((t) => [t.rule_uuid, t.matched])).toEqual([
      [tieA.uuid, true],
      [tieB.uuid, false],
      [late.uuid, false],
    ]);
    expect(out.trace[1].reason).toMatch(/not evaluated/);
  });

  it('rule 2: a matching guard wins over routing, and only the first matching guard fires', async () => {
    const g1 = guard({ example_phrases: ['I want to speak to a human'] });
    const g2 = guard({
      example_phrases: ['I want to speak to a human now'],
      then_action: 'end_conversation',
    });
    const r = routing({ trigger_keyword: 'human' });
    const out = await evaluateRules(
      { guard_rules: [g1, g2], routing_rules: [r] },
      'I want to speak to a human',
      'phone',
      local,
    );
    expect(out).toMatchObject({ decision: 'guard', action: 'forward', say: 'Connecting you.' });
    expect(out.rule?.uuid).toBe(g1.uuid);
    expect(out.destination).toEqual({ type: 'extension', value: '100', agent_uuid: null });
    const byRule = new Map(out.trace.map((t) => [t.rule_uuid, t]));
    expect(byRule.get(g1.uuid)).toMatchObject({ kind: 'guard', eligible: true, matched: true, score: 1 });
    expect(byRule.get(g2.uuid)).toMatchObject({
      matched: false,
      reason: expect.stringMatching(/earlier guard/),
    });
    expect(byRule.get(r.uuid)).toMatchObject({
      kind: 'routing',
      matched: false,
      reason: expect.stringMatching(/guard fired/),
    });
  });

  it('an end_conversation guard says say_before_end and has no destination', async () => {
    const g = guard({ then_action: 'end_conversation' });
    const out = await evaluateRules(
      { guard_rules: [g], routing_rules: [] },
      'I want to speak to a human',
      'sms',
      local,
    );
    expect(out).toMatchObject({
      decision: 'guard',
      action: 'end_conversation',
      say: 'Goodbye.',
      destination: null,
    });
  });

  it('guards respect selected_channels (empty means every channel)', async () => {
    const phoneOnly = guard({ selected_channels: ['phone'] });
    const onSms = await evaluateRules(
      { guard_rules: [phoneOnly], routing_rules: [] },
      'I want to speak to a human',
      'sms',
      local,
    );
    expect(onSms.decision).toBe('none');
    expect(onSms.trace[0]).toMatchObject({
      eligible: false,
      reason: 'channel sms not selected',
      matched: false,
    });
    const onPhone = await evaluateRules(
      { guard_rules: [phoneOnly], routing_rules: [] },
      'I want to speak to a human',
      'phone',
      local,
    );
    expect(onPhone.decision).toBe('guard');
  });

  it('rule 3: exact needs the keyword literally, intent classifies, both tries the keyword first', async () => {
    const exact = routing({ detection_mode: 'exact', trigger_keyword: 'refund', priority: 1 });
    const s1 = spy();
    const hit = await evaluateRules(
      { guard_rules: [], routing_rules: [exact] },
      'I want a REFUND.',
      'chat',
      s1.classify,
    );
    expect(hit).toMatchObject({ decision: 'routing', action: 'transfer_call' });
    expect(hit.trace[0]).toMatchObject({ reason: 'keyword matched', score: 1 });
    expect(s1.calls).toEqual([]); // a literal match needs no classifier

    const miss = await evaluateRules(
      { guard_rules: [], routing_rules: [exact] },
      'give me my money back',
      'chat',
      local,
    );
    expect(miss.decision).toBe('none');
    expect(miss.trace[0]).toMatchObject({ eligible: true, matched: false, reason: 'keyword not found' });

    const intent = routing({
      detection_mode: 'intent',
      ai_prompt: 'The customer wants technical support',
      phrases: ['my internet is not working', 'the router keeps disconnecting'],
      voice_response: 'Transferring you to support.',
    });
    const viaIntent = await evaluateRules(
      { guard_rules: [], routing_rules: [intent] },
      'My internet connection is not working',
      'phone',
      local,
    );
    expect(viaIntent).toMatchObject({
      decision: 'routing',
      say: 'Transferring you to support.',
      classifier: 'local',
    });
    expect(viaIntent.trace[0].score).toBeGreaterThanOrEqual(0.5);

    const both = routing({
      detection_mode: 'both',
      trigger_keyword: 'support',
      ai_prompt: 'Technical support',
      phrases: ['my internet is not working'],
    });
    const s2 = spy();
    const bothKeyword = await evaluateRules(
      { guard_rules: [], routing_rules: [both] },
      'support please',
      'phone',
      s2.classify,
    );
    expect(bothKeyword.trace[0]).toMatchObject({ matched: true, reason: 'keyword matched' });
    expect(s2.calls).toEqual([]);
    const bothIntent = await evaluateRules(
      { guard_rules: [], routing_rules: [both] },
      'my internet is not working',
      'phone',
      local,
    );
    expect(bothIntent.trace[0]).toMatchObject({
      matched: true,
      reason: 'keyword not found; intent matched',
      score: 1,
    });
  });

  it('rule 4: inactive rules and rules missing the fields of their mode never fire', async () => {
    const inactive = routing({ trigger_keyword: 'help', is_active: false });
    const exactNoKeyword = routing({ detection_mode: 'exact', trigger_keyword: '  ' });
    const intentNoPhrases = routing({ detection_mode: 'intent', ai_prompt: 'help', phrases: [] });
    const bothNoPrompt = routing({ detection_mode: 'both', trigger_keyword: 'help', phrases: ['help'] });
    const guardNoCondition = guard({ when_condition: null });
    const guardNoExamples = guard({ example_phrases: [] });
    const inactiveGuard = guard({ is_active: false });
    const s = spy();
    const out = await evaluateRules(
      {
        guard_rules: [guardNoCondition, guardNoExamples, inactiveGuard],
        routing_rules: [inactive, exactNoKeyword, intentNoPhrases, bothNoPrompt],
      },
      'I want to speak to a human, help',
      'phone',
      s.classify,
    );
    expect(out.decision).toBe('none');
    expect(s.calls).toEqual([]);
    expect(out.trace.map((t) => [t.eligible, t.reason])).toEqual([
      [false, 'missing when_condition'],
      [false, 'missing example_phrases'],
      [false, 'inactive'],
      [false, 'inactive'],
      [false, 'missing trigger_keyword'],
      [false, 'missing phrases'],
      [false, 'missing ai_prompt'],
    ]);
  });

  it('classifies each stage in one call and only with eligible rules', async () => {
    const g = guard({ example_phrases: ['cancel my contract'] });
    const a = routing({
      detection_mode: 'intent',
      ai_prompt: 'sales',
      phrases: ['buy a phone'],
      priority: 1,
    });
    const b = routing({
      detection_mode: 'intent',
      ai_prompt: 'support',
      phrases: ['broken screen'],
      priority: 2,
    });
    const s = spy();
    const out = await evaluateRules(
      { guard_rules: [g], routing_rules: [b, a] },
      'my screen is broken',
      'phone',
      s.classify,
    );
    expect(s.calls).toEqual([[g.uuid], [a.uuid, b.uuid]]);
    expect(out.rule?.uuid).toBe(b.uuid);
  });

  it('answers none with a full trace when nothing matches, and passes on a fallback reason', async () => {
    const r = routing({
      detection_mode: 'intent',
      ai_prompt: 'billing',
      phrases: ['question about my invoice'],
    });
    const fallback: Classify = async (u, c) => ({
      method: 'local',
      scores: classifyBySimilarity(u, c),
      fallbackReason: 'Language model answered HTTP 500',
    });
    const out = await evaluateRules(
      { guard_rules: [], routing_rules: [r] },
      'what is the weather',
      'phone',
      fallback,
    );
    expect(out).toMatchObject({
      decision: 'none',
      rule: null,
      action: null,
      say: null,
      destination: null,
      classifier: 'local',
      classifier_note: 'Language model answered HTTP 500',
    });
    expect(out.trace).toEqual([
      {
        rule_uuid: r.uuid,
        kind: 'routing',
        eligible: true,
        reason: 'intent not matched',
        matched: false,
        score: expect.any(Number),
      },
    ]);
  });
});
