import { VersionedCache } from './versioned-cache';

describe('VersionedCache', () => {
  it('answers from memory while the version holds, reads again when it moves, keeps nothing without one', async () => {
    const cache = new VersionedCache<number>(2);
    let reads = 0;
    const read = async () => ++reads;
    expect(await cache.get('a', '1', read)).toBe(1);
    expect(await cache.get('a', '1', read)).toBe(1);
    expect(await cache.get('a', '2', read)).toBe(2);
    expect(await cache.get('a', null, read)).toBe(3);
    expect(await cache.get('a', null, read)).toBe(4);
    // At most two keys: the oldest read goes first.
    await cache.get('b', '2', read);
    await cache.get('c', '2', read);
    const before = reads;
    expect(await cache.get('a', '2', read)).toBe(before + 1);
  });
});
