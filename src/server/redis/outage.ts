// Whether an error is Redis's absence (an outage, a restart), which the error handler answers as 503
// redis_unavailable. ioredis and BullMQ say so only by an error's name or its words, so they are read here, in the
// one place; nothing else of Redis is loaded by it.

/**
 * Whether an error is a Redis command that failed for want of Redis (an API connection fails at once while it is
 * down, or after its command timeout): answered as redisUnavailable(), never as a 500.
 */
export function isRedisUnavailable(err: unknown): boolean {
  const e = err as { name?: string; message?: string } | null;
  return (
    e?.name === 'MaxRetriesPerRequestError' ||
    /Stream isn't writeable|enableOfflineQueue|Command timed out|Connection is closed/.test(e?.message ?? '')
  );
}
