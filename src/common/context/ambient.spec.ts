import { ambientSlot } from './ambient';

describe('ambient slots', () => {
  const a = ambientSlot<string>();
  const b = ambientSlot<number>();

  it('carries each value down asynchronous calls, the other slots unchanged', async () => {
    expect(a.get()).toBeUndefined();
    const seen = await a.run('outer', () =>
      b.run(7, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        const inner = await a.run('inner', async () => {
          await Promise.resolve();
          return [a.get(), b.get()];
        });
        return [inner, [a.get(), b.get()]];
      }),
    );
    expect(seen).toEqual([
      ['inner', 7],
      ['outer', 7],
    ]);
    expect([a.get(), b.get()]).toEqual([undefined, undefined]);
  });

  it('keeps concurrent runs apart', async () => {
    const values = await Promise.all(
      ['x', 'y', 'z'].map((v, i) =>
        a.run(v, async () => {
          await new Promise((resolve) => setTimeout(resolve, 3 - i));
          return a.get();
        }),
      ),
    );
    expect(values).toEqual(['x', 'y', 'z']);
  });

  it('sets a value for the rest of the run with enter, and clears it with undefined', async () => {
    await b.run(1, async () => {
      await a.run('kept', async () => {
        b.enter(2);
        await Promise.resolve();
        expect([a.get(), b.get()]).toEqual(['kept', 2]);
        b.enter(undefined);
        expect(b.get()).toBeUndefined();
      });
      expect(b.get()).toBe(1);
    });
  });
});
