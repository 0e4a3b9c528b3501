import { within } from './within';

describe('within', () => {
  it("answers the work's answer when it comes in time", async () => {
    await expect(within(Promise.resolve('done'), 1000, 'late')).resolves.toBe('done');
  });

  it('answers the fallback when the work takes longer, leaving no timer behind', async () => {
    let finish!: (v: string) => void;
    const slow = new Promise<string>((r) => (finish = r));
    await expect(within(slow, 20, 'late')).resolves.toBe('late');
    finish('done');
    await expect(slow).resolves.toBe('done');
  });

  it("passes the work's failure on when it fails in time", async () => {
    await expect(within(Promise.reject(new Error('refused')), 1000, 'late')).rejects.toThrow('refused');
  });
});
