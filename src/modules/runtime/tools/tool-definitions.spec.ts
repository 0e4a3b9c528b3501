import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import type { DeployedAction } from './intent-actions.port';
import { buildTools, checkArguments, classifyIntent, defaultsOf } from './tool-definitions';

const intent = (over: Record<string, unknown> = {}) => ({
  intent_uuid: 'i-1',
  key: 'book',
  name: 'Book a table',
  description: 'The customer wants a table',
  recommendation_actions: null,
  confidence_threshold: 0.5,
  is_system: false,
  intent_llm_handle_by_response: false,
  webhook: null,
  parameters: [
    { key: 'people', type: 'integer', required: true, default: null },
    { key: 'date', type: 'date', required: true, default: null },
    { key: 'vip', type: 'boolean', required: false, default: 'false' },
    { key: 'phone', type: 'phone', required: false, default: null },
  ],
  created_at: '',
  updated_at: '',
  ...over,
});

const agent = (over: Partial<AgentResponse> = {}) =>
  ({
    agent_uuid: 'a-1',
    intents: [intent()],
    procedures: [
      {
        uuid: 'p',
        name: 'Reservations',
        description: null,
        steps: [{ order: 2, description: 'Book it', intent_uuid: 'i-1' }],
      },
    ],
    training: [],
    ...over,
  }) as unknown as AgentResponse;

describe('intent tools', () => {
  it('builds a function per intent with a JSON schema, required keys without defaults, procedure steps', () => {
    const [tool] = buildTools(agent(), new Map());
    expect(tool.definition.function).toEqual({
      name: 'book',
      description: 'The customer wants a table Step 2 of the procedure "Reservations": Book it.',
      parameters: {
        type: 'object',
        properties: {
          people: { type: 'integer' },
          date: { type: 'string', format: 'date', description: 'YYYY-MM-DD' },
          vip: { type: 'boolean' },
          phone: { type: 'string', description: 'E.164, e.g. +14155552671' },
        },
        required: ['people', 'date'],
      },
    });
  });

  it('an ai_query action replaces the parameters with one query string', () => {
    const action = {
      type: 'app',
      config: { action: 'ai_query', query_description: 'a product' },
    } as DeployedAction;
    const [tool] = buildTools(agent(), new Map([['i-1', action]]));
    expect(tool.definition.function.parameters).toEqual({
      type: 'object',
      properties: { query: { type: 'string', description: 'a product' } },
      required: ['query'],
    });
    expect(checkArguments(tool, '{"query":"red"}')).toEqual({ ok: true, parameters: { query: 'red' } });
    expect(checkArguments(tool, '{}')).toMatchObject({ ok: false });
  });

  it('checks arguments by type and fills defaults for keys left out', () => {
    const [tool] = buildTools(agent(), new Map());
    expect(checkArguments(tool, '{"people":4,"date":"2026-12-24"}')).toEqual({
      ok: true,
      parameters: { people: 4, date: '2026-12-24', vip: false },
    });
    expect(checkArguments(tool, '{"people":4.5,"date":"soon","phone":"123"}')).toEqual({
      ok: false,
      details: [
        'people must be an integer',
        'date must be a date (YYYY-MM-DD)',
        'phone must be a phone number in E.164 format (+ and 8 to 15 digits)',
      ],
    });
    expect(checkArguments(tool, '{"people":4,"date":"2026-12-24","phone":"+11234567890"}')).toEqual({
      ok: false,
      details: ['phone: +11234567890 is not a valid US number'],
    });
    expect(checkArguments(tool, 'not json')).toEqual({
      ok: false,
      details: ['arguments are not a JSON object'],
    });
    expect(checkArguments(tool, '[]')).toMatchObject({ ok: false });
    expect(checkArguments(tool, '{}')).toEqual({
      ok: false,
      details: ['people is required', 'date is required'],
    });
  });

  it('defaults are typed', () => {
    expect(
      defaultsOf(
        intent({
          parameters: [
            { key: 'n', type: 'number', required: false, default: '2.5' },
            { key: 'b', type: 'boolean', required: false, default: 'true' },
            { key: 's', type: 'string', required: false, default: 'x' },
            { key: 'none', type: 'string', required: false, default: null },
            { key: 'empty', type: 'string', required: true, default: '' },
            { key: 'blank', type: 'integer', required: false, default: ' ' },
          ],
        }) as never,
      ),
    ).toEqual({ n: 2.5, b: true, s: 'x' });
  });

  it('the local classifier uses name, description and training items of the intent key, above the threshold', () => {
    const a = agent({
      intents: [
        intent(),
        intent({ intent_uuid: 'i-2', key: 'cancel', name: 'Cancel', description: 'stop the order' }),
      ] as never,
      training: [{ uuid: 't', content: 'can I reserve for friday evening', intent: 'book', response: null }],
    });
    const tools = buildTools(a, new Map());
    expect(classifyIntent(a, tools, 'can I reserve for friday evening')?.tool.intent.key).toBe('book');
    expect(classifyIntent(a, tools, 'please stop the order')?.tool.intent.key).toBe('cancel');
    expect(classifyIntent(a, tools, 'zzzz')).toBeNull();
  });
});
