import Redis from 'ioredis';

/** Every key of the deployment's prefix, as `redis-cli --scan --pattern '<prefix>:*'` lists them. */
export async function scanKeys(prefix: string): Promise<string[]> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  } finally {
    await redis.quit();
  }
}
