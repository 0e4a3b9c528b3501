import { keyFromName } from './handlers/intents.handler';
import { factoryMemorizeSettings, mergeMemorize } from '../settings/memorize-settings.service';

describe('intent keys', () => {
  it('are lowercase ASCII words joined by underscores', () => {
    expect(keyFromName('Check order status!')).toBe('check_order_status');
    expect(keyFromName('  Réserver une table  ')).toBe('reserver_une_table');
    expect(keyFromName('***')).toBe('intent');
  });
});

describe('memorize merge', () => {
  it('merges each block key by key and replaces is_active', () => {
    const base = { ...factoryMemorizeSettings(), contact_field_settings: { a: 1, b: 2 } };
    expect(mergeMemorize(base, { contact_field_settings: { b: 3 }, is_active: false })).toEqual({
      contact_field_settings: { a: 1, b: 3 },
      conversation_settings: {},
      channel_settings: {},
      is_active: false,
    });
    expect(base.contact_field_settings).toEqual({ a: 1, b: 2 });
  });
});
