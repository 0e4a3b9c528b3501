import { optOutKeyword } from './opt-out';
import { movesForward } from './message-status.service';

describe('opt-out words', () => {
  it('matches the whole trimmed text in any case', () => {
    for (const w of ['STOP', ' stop ', 'StopAll', 'unsubscribe', 'Cancel', 'end', 'QUIT'])
      expect(optOutKeyword(w)).toBe('stop');
    expect(optOutKeyword('start')).toBe('start');
    expect(optOutKeyword(' UNSTOP')).toBe('start');
    expect(optOutKeyword('please stop')).toBeNull();
    expect(optOutKeyword('stopp')).toBeNull();
  });
});

describe('delivery statuses', () => {
  it('move forward only; failed and undelivered are final', () => {
    expect(movesForward('queued', 'sent')).toBe(true);
    expect(movesForward('sent', 'read')).toBe(true);
    expect(movesForward('read', 'delivered')).toBe(false);
    expect(movesForward('delivered', 'delivered')).toBe(false);
    expect(movesForward('sent', 'failed')).toBe(true);
    expect(movesForward('failed', 'delivered')).toBe(false);
    expect(movesForward('undelivered', 'failed')).toBe(false);
    expect(movesForward('received', 'sent')).toBe(false);
  });
});
