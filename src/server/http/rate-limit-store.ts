// The in-process counts of the POST rate limit (http/rate-limits.ts) when there is no Redis: fixed windows per client
// key, as @fastify/rate-limit's own local store counts them, but each count answered as a copy.
//
// Why ours: the plugin's store answers every request of a key with the one object it keeps, and the plugin reads it
// after an await; requests counted in the same tick (the calls of one JSON-RPC batch to /mcp, made in-process at
// once) all read the last count. A limit of 3 and a batch of 4: all four were refused (issue 55). Here each request
// reads its own count: three pass, the fourth is 429.
import type { FastifyRateLimitStore } from '@fastify/rate-limit';

/** keys kept at most; past it, expired windows go first, then the oldest (as the plugin's LRU of 5,000 did) */
const MAX_KEYS = 5_000;

interface Window {
  count: number;
  start: number;
}

export class LocalWindowStore implements FastifyRateLimitStore {
  private readonly windows = new Map<string, Window>();

  incr(
    key: string,
    callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindow: number,
  ): void {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || w.start + timeWindow <= now) {
      this.windows.delete(key);
      w = { count: 0, start: now };
      this.windows.set(key, w);
      if (this.windows.size > MAX_KEYS) this.trim(now, timeWindow);
    }
    w.count += 1;
    callback(null, { current: w.count, ttl: w.start + timeWindow - now });
  }

  child(): FastifyRateLimitStore {
    return new LocalWindowStore();
  }

  private trim(now: number, timeWindow: number): void {
    for (const [k, w] of this.windows) if (w.start + timeWindow <= now) this.windows.delete(k);
    // Map order is insertion order: the windows begun longest ago go first
    for (const k of this.windows.keys()) {
      if (this.windows.size <= MAX_KEYS) break;
      this.windows.delete(k);
    }
  }
}
