// The Redis mode's backend (REDIS_URL): job records in Redis, the queue on BullMQ, idempotency keys shared by every
// API process. services.ts loads this module only when REDIS_URL is set, so an embedded service never loads BullMQ
// and ioredis (about a quarter of a second of its start).
import { RedisBatchStore } from '../jobs/batches/batch-store.js';
import type { Logger } from 'pino';
import type { Config } from '../../config/settings.js';
import type { Renderer } from '../../render/renderer-port.js';
import type { Backend } from '../backend.js';
import { RedisJobStore } from '../jobs/store/redis.js';
import { connect, connectApi, waitReady } from './connection.js';
import { BullmqQueue } from '../jobs/queue/bullmq.js';
import { RedisIdempotency } from './redis-idempotency.js';
import { idempotencyTtl } from '../jobs/idempotency.js';

/** How long a process waits for Redis at start before it stops with a clear line. */
const REDIS_START_MS = 10_000;

/** What the Redis backend needs of the service's options (services.ts's ServiceOptions). */
export interface RedisBackendOptions {
  config: Config;
  log: Logger;
  renderer: Renderer;
  /** a render worker: its commands wait out an outage */
  worker?: boolean;
}

export async function redisBackend(
  opts: RedisBackendOptions,
  now: () => number,
  renders: boolean,
  failed: (id: string, message: string) => Promise<void>,
): Promise<Backend> {
  const { config, log } = opts;
  // an API's commands fail fast (a request is answered 503 redis_unavailable); a worker's wait out an outage
  const redis = opts.worker ? connect(config.redisUrl) : connectApi(config.redisUrl);
  redis.on('error', (err) => log.warn({ err }, 'redis connection error'));
  // a process started while Redis is unreachable stops with one clear line instead of waiting without listening
  try {
    await waitReady(redis, config.redisUrl, REDIS_START_MS);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const store = new RedisJobStore(redis, config.retentionMs, now);
  // the items an API process renders beside its API wait out an outage too
  const runRedis = renders && !opts.worker ? connect(config.redisUrl) : null;
  runRedis?.on('error', (err) => log.warn({ err }, 'redis connection error (render)'));
  const bullmq = new BullmqQueue({
    connection: redis,
    redisUrl: config.redisUrl,
    store,
    concurrency: config.renderConcurrency,
    stalledIntervalMs: config.stalledIntervalMs,
    followEvents: !opts.worker,
    fault: () => opts.renderer.fault?.() ?? null,
    failed,
    log,
    now,
  });
  return {
    store,
    plain: store,
    queue: () => ({ queue: bullmq, lost: (rec) => bullmq.lost(rec) }),
    runStore: runRedis ? new RedisJobStore(runRedis, config.retentionMs, now) : undefined,
    batches: new RedisBatchStore(redis, config.retentionMs),
    bullmq,
    redis,
    link: {
      up: () => store.reachable,
      ping: async () => {
        let t: NodeJS.Timeout | undefined;
        const answered = await Promise.race([
          redis.ping().then(
            () => true,
            () => false,
          ),
          new Promise<boolean>((r) => (t = setTimeout(() => r(false), 1_000))),
        ]);
        clearTimeout(t);
        return answered;
      },
    },
    // every API process answers one key with one job
    idempotency: () => ({ keys: new RedisIdempotency(redis, idempotencyTtl(config.retentionMs)) }),
    claimAttempt: (id, n, holdMs) => store.claimWebhookAttempt(id, n, holdMs),
    sharedCount: store,
    keepPending: { everyMs: store.keepPendingEveryMs, run: () => store.keepPending() },
    // the count of ended jobs is a sorted set every process shares
    endedCountedInProcess: false,
    async close() {
      redis.disconnect();
      runRedis?.disconnect();
    },
  };
}
