import { memorizePlan, pickFields } from './memorize';

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
