/**
 * `work`'s answer if it comes within `ms`, else `fallback` (the work goes on; its later answer or failure is
 * ignored here). The timer is cleared either way, so nothing is left pending.
 */
export async function within<T>(work: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
