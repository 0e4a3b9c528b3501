import { capResult, RESULT_MAX_BYTES } from './result-size';

describe('capResult', () => {
  it('keeps a small result as it is', () => {
    expect(capResult({ ok: true })).toEqual({ ok: true });
    expect(capResult(undefined)).toBeNull();
  });

  it('cuts a long result to 8,192 bytes of JSON, marked truncated', () => {
    for (const unit of ['a', 'é', '😀', '"\\']) {
      const capped = capResult({ text: unit.repeat(10_000) }) as { truncated: boolean; content: string };
      expect(capped.truncated).toBe(true);
      const size = Buffer.byteLength(JSON.stringify(capped));
      expect(size).toBeLessThanOrEqual(RESULT_MAX_BYTES);
      expect(size).toBeGreaterThan(RESULT_MAX_BYTES - 64);
      expect(capped.content.startsWith('{"text":"')).toBe(true);
      expect(capped.content).not.toMatch(/[\ud800-\udbff]$/);
    }
  });
});
