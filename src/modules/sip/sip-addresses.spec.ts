import { numberOfAddress, trunkAddress } from '@/providers/telephony/twilio.telephony';
import { dialTwiml, TwilioUrls } from '@/providers/telephony/twilio-twiml';
import { isIpOrCidr, isSipHost } from './dto/sip-addresses';
import { sipUri } from './sip-directory';

describe('SIP addresses', () => {
  it('takes the number out of the SIP addresses Twilio hands over', () => {
    expect(numberOfAddress('sip:+15551234567@acme.sip.twilio.com')).toBe('+15551234567');
    expect(numberOfAddress('sip:15551234567@acme.sip.twilio.com;user=phone')).toBe('+15551234567');
    expect(numberOfAddress('sips:%2B15551234567@acme.sip.twilio.com')).toBe('+15551234567');
    expect(numberOfAddress('sip:alice@pbx.example.com')).toBe('alice');
    expect(numberOfAddress('sip:%E0%A4%A@x')).toBe('%E0%A4%A');
    expect(numberOfAddress('+15551234567')).toBe('+15551234567');
    expect(numberOfAddress(undefined)).toBeUndefined();
  });

  it('builds trunk and extension addresses', () => {
    expect(trunkAddress('+15551234567', 'sip.carrier.example')).toBe('sip:+15551234567@sip.carrier.example');
    expect(trunkAddress('+15551234567', '2001:db8::1')).toBe('sip:+15551234567@[2001:db8::1]');
    expect(sipUri('1002', 'pbx.example.com', 5060, 'udp')).toBe('sip:1002@pbx.example.com:5060');
    expect(sipUri('1002', 'pbx.example.com', 5061, 'tls')).toBe(
      'sip:1002@pbx.example.com:5061;transport=tls',
    );
  });

  it('accepts host names and IPs only', () => {
    for (const ok of ['pbx.example.com', 'pbx', '198.51.100.7', '2001:db8::10', 'a-b.c-d.example'])
      expect(isSipHost(ok)).toBe(true);
    for (const bad of [
      'sip:pbx.example.com',
      'pbx.example.com:5060',
      'https://x',
      'a b',
      '-x.example',
      '',
      5060,
    ])
      expect(isSipHost(bad)).toBe(false);
    expect(isIpOrCidr('203.0.113.0/24')).toBe(true);
    expect(isIpOrCidr('2001:db8::/32')).toBe(true);
    expect(isIpOrCidr('203.0.113.0/33')).toBe(false);
    expect(isIpOrCidr('pbx.example.com')).toBe(false);
  });

  it('dials an extension as <Sip> with its credentials and the answered callback', () => {
    const xml = dialTwiml(
      new TwilioUrls('https://api.example.test'),
      'call-1',
      'a1',
      { sip: { uri: 'sip:1002@pbx.example.com:5060', username: 'u', password: 'p' } },
      null,
      30,
    );
    expect(xml).toContain(
      '<Sip statusCallback="https://api.example.test/hooks/v1/twilio/calls/call-1/dial-status?attempt=a1"',
    );
    expect(xml).toContain('username="u" password="p">sip:1002@pbx.example.com:5060</Sip>');
    const bare = dialTwiml(
      new TwilioUrls('https://api.example.test'),
      'call-1',
      'a1',
      { sip: { uri: 'sip:1002@pbx.example.com:5060', username: null, password: null } },
      null,
      30,
    );
    expect(bare).not.toContain('username=');
    expect(bare).not.toContain('password=');
  });
});
