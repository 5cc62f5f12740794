// Connections to Redis, one kind for each use: blocking readers (QueueEvents, a worker) wait out an outage, an API
// process's commands fail fast so a request is answered 503 redis_unavailable instead of hanging.
import { Redis } from 'ioredis';

/** A connection as BullMQ wants it: commands wait for a reconnect instead of failing (maxRetriesPerRequest null). */
export function connect(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

/** How long an API process's Redis command may take before its request is answered 503. */
export const API_COMMAND_TIMEOUT_MS = 5_000;

/**
 * An API process's connection (its records and the queue it adds to; BullMQ recommends this for producers):
 * while Redis is down a command fails at once, and one that gets no answer fails after API_COMMAND_TIMEOUT_MS, so a
 * request is answered 503 redis_unavailable instead of waiting for the outage to end. Blocking readers (QueueEvents,
 * workers) keep connect().
 */
export function connectApi(url: string): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    commandTimeout: API_COMMAND_TIMEOUT_MS,
    connectTimeout: API_COMMAND_TIMEOUT_MS,
    enableReadyCheck: true,
  });
}

/** Resolves once the connection is ready; rejects with one clear sentence after ms. */
export function waitReady(redis: Redis, url: string, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', ok);
      reject(new Error(`Redis at ${redactUrl(url)} is not reachable (no connection within ${ms / 1000} s)`));
    }, ms);
    const ok = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', ok);
  });
}

/** A Redis URL without its password, for logs and errors. */
export const redactUrl = (url: string): string => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
