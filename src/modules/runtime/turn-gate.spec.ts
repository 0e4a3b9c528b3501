import { TurnCancelled, TurnGate } from './turn-gate';

const settled = (p: Promise<unknown>) =>
  p.then(
    () => 'committed',
    (err: unknown) => (err instanceof TurnCancelled ? 'cancelled' : 'failed'),
  );

function speculative() {
  let commit!: () => void;
  let refuse!: () => void;
  const committed = new Promise<void>((resolve, reject) => {
    commit = resolve;
    refuse = () => reject(new Error('gone'));
  });
  const controller = new AbortController();
  const deltas: string[] = [];
  const gate = new TurnGate({ commit: committed, signal: controller.signal, onDelta: (d) => deltas.push(d) });
  return { gate, commit, refuse, controller, deltas };
}

describe('the commit of a live turn', () => {
  it('without a commit: open at once, nothing aborts the model, deltas pass until the signal aborts', async () => {
    const controller = new AbortController();
    const deltas: string[] = [];
    const gate = new TurnGate({ signal: controller.signal, onDelta: (d) => deltas.push(d) });
    expect(gate.speculative).toBe(false);
    expect(gate.signal).toBeUndefined();
    await expect(settled(gate.opened)).resolves.toBe('committed');
    gate.deliver('a');
    controller.abort();
    gate.deliver('b');
    expect(deltas).toEqual(['a']);
  });

  it('holds the deltas until the commit, then passes them on in order', async () => {
    const { gate, commit, deltas } = speculative();
    gate.deliver('Hello ');
    gate.deliver('there');
    expect(deltas).toEqual([]);
    commit();
    await gate.opened;
    expect(deltas).toEqual(['Hello ', 'there']);
    gate.deliver('!');
    expect(deltas).toEqual(['Hello ', 'there', '!']);
  });

  it("cancelled before the commit: rejects TurnCancelled, aborts the model's signal, drops the deltas", async () => {
    const { gate, commit, controller, deltas } = speculative();
    gate.deliver('Hello');
    controller.abort();
    await expect(settled(gate.opened)).resolves.toBe('cancelled');
    expect(gate.signal?.aborted).toBe(true);
    commit();
    gate.deliver('more');
    expect(deltas).toEqual([]);
  });

  it("an abort after the commit stops the deltas only: the model's signal stays", async () => {
    const { gate, commit, controller, deltas } = speculative();
    commit();
    await gate.opened;
    controller.abort();
    gate.deliver('late');
    expect(gate.signal?.aborted).toBe(false);
    expect(deltas).toEqual([]);
  });

  it('a commit that rejects cancels; a signal aborted beforehand cancels at once', async () => {
    const first = speculative();
    first.refuse();
    await expect(settled(first.gate.opened)).resolves.toBe('cancelled');
    const controller = new AbortController();
    controller.abort();
    const gate = new TurnGate({ commit: Promise.resolve(), signal: controller.signal });
    await expect(settled(gate.opened)).resolves.toBe('cancelled');
    expect(gate.signal?.aborted).toBe(true);
  });
});
