import { canMove, providerCanMove, providerEndReason } from './call-states';

describe('call states', () => {
  it('follows the table for commands', () => {
    expect(canMove('queued', 'ringing')).toBe(true);
    expect(canMove('queued', 'in-progress')).toBe(false);
    expect(canMove('ringing', 'in-progress')).toBe(true);
    expect(canMove('in-progress', 'busy')).toBe(false);
    expect(canMove('completed', 'in-progress')).toBe(false);
  });

  it('lets provider events skip lost states but never move back', () => {
    expect(providerCanMove('queued', 'in-progress')).toBe(true);
    expect(providerCanMove('queued', 'completed')).toBe(true);
    expect(providerCanMove('in-progress', 'ringing')).toBe(false);
    expect(providerCanMove('in-progress', 'in-progress')).toBe(false);
    expect(providerCanMove('in-progress', 'busy')).toBe(false);
    expect(providerCanMove('completed', 'in-progress')).toBe(false);
  });

  it('names the end reason of unasked provider outcomes', () => {
    expect(providerEndReason('completed')).toBe('customer_hangup');
    expect(providerEndReason('failed')).toBe('provider_error');
    expect(providerEndReason('ringing')).toBeNull();
  });
});
