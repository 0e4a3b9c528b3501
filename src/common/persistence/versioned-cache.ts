/**
 * Values kept per key with the configuration version they were read under (`agent_config_versions`, read with the
 * row that needs them): a lookup with the same version answers from memory, any other reads again. Without a
 * version (nothing configured yet) nothing is kept. At most `max` keys, the oldest read dropped first.
 */
export class VersionedCache<T> {
  private readonly kept = new Map<string, { version: string; value: T }>();

  constructor(private readonly max = 2000) {}

  async get(key: string, version: string | null | undefined, read: () => Promise<T>): Promise<T> {
    const hit = version ? this.kept.get(key) : undefined;
    if (hit && hit.version === version) return hit.value;
    const value = await read();
    if (version) {
      this.kept.delete(key);
      this.kept.set(key, { version, value });
      if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value!);
    }
    return value;
  }
}
