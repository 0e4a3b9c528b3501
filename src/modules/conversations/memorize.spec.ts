import { extractionPrompt, memorizePlan, parseExtraction, pickFields } from './memorize';

const base = { is_active: true, contact_field_settings: {}, conversation_settings: {}, channel_settings: {} };

describe('memorize plan', () => {
  it('remembers three summaries and no contact field by default', () => {
    expect(memorizePlan(base, 'chat')).toEqual({ active: true, readable: [], writable: [], summaries: 3 });
  });

  it('reads and writes the fields the settings name', () => {
    const plan = memorizePlan(
      {
        ...base,
        contact_field_settings: {
          name: 'read_write',
          email: 'read',
          phone_number: 'off',
          'custom_fields.plan': 'read_write',
        },
      },
      'sms',
    );
    expect(plan.readable).toEqual(['name', 'email', 'custom_fields.plan']);
    expect(plan.writable).toEqual(['name', 'custom_fields.plan']);
  });

  it('is off when inactive or when the channel is switched off', () => {
    const settings = { ...base, contact_field_settings: { name: 'read_write' } };
    expect(memorizePlan({ ...settings, is_active: false }, 'chat')).toEqual({
      active: false,
      readable: [],
      writable: [],
      summaries: 0,
    });
    expect(memorizePlan({ ...settings, channel_settings: { chat: false } }, 'chat').active).toBe(false);
    expect(memorizePlan({ ...settings, channel_settings: { chat: false } }, 'sms').active).toBe(true);
  });

  it('bounds the number of summaries and honours remember_summaries', () => {
    expect(memorizePlan({ ...base, conversation_settings: { max_summaries: 50 } }, 'chat').summaries).toBe(
      10,
    );
    expect(
      memorizePlan({ ...base, conversation_settings: { remember_summaries: false } }, 'chat').summaries,
    ).toBe(0);
  });

  it('picks plain and custom fields, skipping empty ones', () => {
    expect(
      pickFields({ name: 'Ada', email: '', custom_fields: { plan: 'gold' } }, [
        'name',
        'email',
        'custom_fields.plan',
        'custom_fields.x',
      ]),
    ).toEqual({
      name: 'Ada',
      'custom_fields.plan': 'gold',
    });
  });
});

describe('memorize extraction', () => {
  it('reads objects with confidence and reason, and plain strings, for the fields asked only', () => {
    expect(
      parseExtraction(
        {
          email: { value: ' ada@example.com ', confidence: 1.4, reason: ' said so ' },
          name: 'Ada',
          'custom_fields.age': { value: 36, confidence: 0.8123 },
          surname: { value: '' },
          other: 'x',
        },
        ['email', 'name', 'custom_fields.age', 'surname'],
      ),
    ).toEqual([
      { field: 'email', value: 'ada@example.com', confidence: 1, reason: 'said so' },
      { field: 'name', value: 'Ada', confidence: null, reason: null },
      { field: 'custom_fields.age', value: '36', confidence: 0.812, reason: null },
    ]);
    expect(parseExtraction(['email'], ['email'])).toEqual([]);
    expect(parseExtraction(null, ['email'])).toEqual([]);
  });

  it('lists each field with its goals and examples', () => {
    const prompt = extractionPrompt(
      ['email', 'custom_fields.plan'],
      new Map([
        ['email', { updateBehavior: 'update_if_empty', analysisGoals: 'Their email', exampleValues: null }],
        [
          'custom_fields.plan',
          { updateBehavior: 'manual_approval', analysisGoals: null, exampleValues: 'gold' },
        ],
      ]),
    );
    expect(prompt).toMatch(/^From the conversation, extract/);
    expect(prompt).toContain('clearly stated: email, custom_fields.plan.');
    expect(prompt).toContain('- email: Their email\n- custom_fields.plan (for example: gold)');
  });

  const won = '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e01';
  const lost = '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e02';
  const stages = [
    {
      stageId: won,
      name: 'Won',
      updateBehavior: 'automatic_update' as const,
      analysisGoals: 'The customer paid',
    },
    { stageId: lost, name: 'Lost', updateBehavior: 'manual_approval' as const, analysisGoals: null },
  ];

  it('asks for the stage in the same call, naming each stage with its goals and the current stage', () => {
    const withFields = extractionPrompt(
      ['email'],
      new Map([['email', { updateBehavior: 'update_if_empty', analysisGoals: null, exampleValues: null }]]),
      stages,
      'Lost',
    );
    expect(withFields).toMatch(/^From the conversation, extract what the customer said/);
    expect(withFields).toContain('clearly stated: email.');
    expect(withFields).toContain('Also add the key "pipeline_stage"');
    expect(withFields).toContain('The contact is now in the stage "Lost".');
    expect(withFields).toContain(`- ${won}: Won (The customer paid)\n- ${lost}: Lost`);
    const only = extractionPrompt([], new Map(), stages, null);
    expect(only).toMatch(/^From the conversation, extract which pipeline stage/);
    expect(only).toContain('The contact is in no stage yet.');
    expect(extractionPrompt(['email'], new Map())).not.toContain('pipeline_stage');
  });

  it('reads the stage by id or by a name one stage has; a stage not offered is dropped', () => {
    const read = (value: unknown, offered = stages) =>
      parseExtraction({ pipeline_stage: value }, ['email'], offered);
    expect(read({ value: won.toUpperCase(), confidence: 0.9, reason: 'paid' })).toEqual([
      { field: 'pipeline_stage', value: won, confidence: 0.9, reason: 'paid' },
    ]);
    expect(read(' lost ')).toEqual([
      { field: 'pipeline_stage', value: lost, confidence: null, reason: null },
    ]);
    expect(read('01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5eff')).toEqual([]);
    expect(read({ value: null })).toEqual([]);
    expect(read('Won', [...stages, { ...stages[0], stageId: lost, name: 'won' }])).toEqual([]);
    // Not asked (no stages offered): ignored like any other key.
    expect(read(won, [])).toEqual([]);
  });
});
