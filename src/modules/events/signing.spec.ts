import { Webhook } from 'standardwebhooks';
import { sign, signatureHeader, signingKey } from '@/common/net/signed-webhook';
import { generateSecret } from './signing';

// The test vector published with the Standard Webhooks specification.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('webhook signing', () => {
  it('matches the published Standard Webhooks test vector', () => {
    expect(sign(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it('agrees with the standardwebhooks package for whsec_ secrets and plain ones', () => {
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type: 'conversation_status', data: { a: 1 } });
    const whsec = generateSecret();
    expect(whsec).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const headers = (secret: string) => ({
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(now),
      'webhook-signature': sign(secret, 'evt_1', now, body),
    });
    expect(new Webhook(whsec).verify(body, headers(whsec))).toEqual(JSON.parse(body));
    expect(new Webhook('plain secret', { format: 'raw' }).verify(body, headers('plain secret'))).toEqual(
      JSON.parse(body),
    );
    expect(() => new Webhook(generateSecret()).verify(body, headers(whsec))).toThrow();
  });

  it('keys a whsec_ secret with its decoded bytes and anything else with its UTF-8 bytes', () => {
    expect(signingKey('whsec_AAEC')).toEqual(Buffer.from([0, 1, 2]));
    expect(signingKey('hunter22')).toEqual(Buffer.from('hunter22'));
    expect(signingKey('whsec_not base64!')).toEqual(Buffer.from('whsec_not base64!'));
  });

  it('signs with every live secret, separated by a space, during a rotation', () => {
    const header = signatureHeader(['new-secret', 'old-secret'], 'id', 1, '{}');
    const parts = header.split(' ');
    expect(parts).toEqual([sign('new-secret', 'id', 1, '{}'), sign('old-secret', 'id', 1, '{}')]);
  });
});
