import Redis from 'ioredis';

/** `host:port` of a Redis URL, without credentials, for messages. */
export function describeRedis(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 6379}`;
}

/**
 * One connection and a PING before anything else uses Redis: an unreachable server stops the start with one line
 * naming it, instead of every client retrying and logging forever.
 */
export async function assertRedisReachable(url: string, timeoutMs = 5000): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // The socket's error says why (connect() itself only answers "Connection is closed"); it is reported once, below.
  let cause: NodeJS.ErrnoException | undefined;
  client.on('error', (err: NodeJS.ErrnoException) => (cause ??= err));
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    const e = cause ?? (err as NodeJS.ErrnoException);
    throw new Error(`Redis at ${describeRedis(url)} is unreachable: ${e.message || e.code}`, { cause: e });
  } finally {
    client.disconnect();
  }
}
