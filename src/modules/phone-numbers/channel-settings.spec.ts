import { AppException } from '@/common/errors/app.exception';
import {
  assertOutboundCall,
  assertSmsEnabled,
  effectiveSettings,
  inboundEnabled,
  mergeSettings,
  numberCallLimit,
} from './channel-settings';
import type { ChannelSettings } from './phone-number.entity';

const number = (channelSettings: ChannelSettings, countryCode: string | null = 'US') => ({
  number: '+12015550123',
  countryCode,
  channelSettings,
});

const conflict = (work: () => void): string => {
  try {
    work();
  } catch (err) {
    expect(err).toBeInstanceOf(AppException);
    expect((err as AppException).code).toBe('CONFLICT');
    return (err as AppException).message;
  }
  throw new Error('no conflict');
};

describe('channel settings', () => {
  it('fills defaults: enabled, the workspace limit, the own country', () => {
    expect(effectiveSettings(number({}), 50)).toEqual({
      voice: { enabled: true, channel_limit: 50, whitelisted_destinations: ['US'] },
      sms: { enabled: true },
      inbound: { enabled: true, channel_limit: 50 },
    });
    expect(effectiveSettings(number({}, null), 7).voice.whitelisted_destinations).toEqual([]);
  });

  it('merges: a key given replaces, null removes, absent stays; a null block resets it', () => {
    const stored: ChannelSettings = { voice: { channel_limit: 3, enabled: false }, sms: { enabled: false } };
    expect(
      mergeSettings(stored, { voice: { channel_limit: null, whitelisted_destinations: ['GB'] } }),
    ).toEqual({
      voice: { enabled: false, whitelisted_destinations: ['GB'] },
      sms: { enabled: false },
    });
    expect(mergeSettings(stored, { sms: null, inbound: { enabled: false } })).toEqual({
      voice: { channel_limit: 3, enabled: false },
      inbound: { enabled: false },
    });
    expect(mergeSettings(stored, {})).toEqual(stored);
  });

  it('refuses calls abroad, to unknown countries and from a number whose voice is off', () => {
    expect(() => assertOutboundCall(number({}), '+14155550123')).not.toThrow();
    expect(conflict(() => assertOutboundCall(number({}), '+447400123456'))).toContain('GB');
    expect(() =>
      assertOutboundCall(number({ voice: { whitelisted_destinations: ['US', 'GB'] } }), '+447400123456'),
    ).not.toThrow();
    expect(() => assertOutboundCall(number({}, null), '+447400123456')).not.toThrow();
    expect(
      conflict(() => assertOutboundCall(number({ voice: { enabled: false } }), '+14155550123')),
    ).toContain('voice.enabled');
  });

  it('reads SMS and inbound switches and the per-direction limits', () => {
    expect(() => assertSmsEnabled(number({}))).not.toThrow();
    expect(conflict(() => assertSmsEnabled(number({ sms: { enabled: false } })))).toContain('sms.enabled');
    expect(inboundEnabled(number({ inbound: { enabled: false } }))).toBe(false);
    expect(inboundEnabled(number({}))).toBe(true);
    const limits = { channelSettings: { voice: { channel_limit: 2 }, inbound: { channel_limit: 5 } } };
    expect(numberCallLimit(limits, 'Outbound')).toBe(2);
    expect(numberCallLimit(limits, 'Inbound')).toBe(5);
    expect(numberCallLimit({ channelSettings: {} }, 'Inbound')).toBeUndefined();
  });
});
