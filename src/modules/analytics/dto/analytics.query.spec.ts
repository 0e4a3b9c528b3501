import { parseChannelList } from './analytics.query';

describe('parseChannelList', () => {
  it('splits, trims and de-duplicates channels', () => {
    expect(parseChannelList('whatsapp')).toEqual(['whatsapp']);
    expect(parseChannelList('whatsapp, sms,whatsapp')).toEqual(['whatsapp', 'sms']);
  });

  it('refuses unknown or empty entries and non-strings', () => {
    for (const bad of ['', ' ', 'fax', 'sms,', 'sms,,chat', 'SMS', ['sms'], 3, undefined])
      expect(parseChannelList(bad)).toBeNull();
  });
});
