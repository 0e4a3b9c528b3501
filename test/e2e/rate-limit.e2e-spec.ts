import { createTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';

describe('rate limit: per workspace, shared by every API process', () => {
  const one = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '5' }, tenants: ['tenant', 'other'] });
  const two = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '5' } });

  it('counts requests of two processes together and answers 429 with Retry-After past the limit', async () => {
    const remaining: string[] = [];
    for (const app of [one.app, two.app, one.app, two.app, one.app]) {
      const res = await app.http(one.tenant.host, one.tenant.token).get('/api/v1/me').expect(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThan(Date.now() / 1000);
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 61);
      remaining.push(res.headers['x-ratelimit-remaining']);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);

    const limited = await two.app.http(one.tenant.host, one.tenant.token).get('/api/v1/me').expect(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body).toEqual({
      success: false,
      message: expect.stringContaining('Rate limit'),
      error: { code: 'RATE_LIMIT_EXCEEDED', details: expect.any(String), retryAfter },
    });
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('keeps workspaces apart', async () => {
    const res = await one.app.http(one.other.host, one.other.token).get('/api/v1/me').expect(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('checks the token before counting: 401s do not use the allowance', async () => {
    const fresh = await createTenant(one.app);
    for (let i = 0; i < 6; i++) await one.app.http(fresh.host).get('/api/v1/me').expect(401);
    const res = await one.app.http(fresh.host, fresh.token).get('/api/v1/me').expect(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('4');
  });
});
