// What a mode of the service gives the job service: its records, its queue, its idempotency keys and, in Redis mode,
// the shared connection and counts. Built by services.ts (embedded: the journal and the local queue) or by
// redis/redis-backend.ts (REDIS_URL).
import type { Redis } from 'ioredis';
import type { JobStore, LifecycleStore } from './jobs/store/port.js';
import type { RedisJobStore } from './jobs/store/redis.js';
import type { JobQueue } from './jobs/queue/port.js';
import type { BullmqQueue } from './jobs/queue/bullmq.js';
import type { OutputStore } from './storage/output-store.js';
import type { IdempotencyKeys } from './jobs/idempotency.js';
import type { BatchStore } from './jobs/batches/batch-store.js';

/** Where a mode keeps its records and work: the journal and the local queue, or Redis and BullMQ (redis/redis-backend.ts). */
export interface Backend {
  store: LifecycleStore;
  /** the store as the byte count, retention and webhooks use it */
  plain: JobStore;
  /** the queue, over the output store (the local queue discards what a stopped job left) */
  queue(outputs: OutputStore): JobQueue;
  runStore?: LifecycleStore;
  bullmq?: BullmqQueue;
  redis?: Redis;
  link?: { up(): boolean; ping(): Promise<boolean> };
  idempotency: (now: () => number) => IdempotencyKeys;
  /** where batch records are kept (jobs/batches/batch-store.ts) */
  batches: BatchStore;
  claimAttempt?: (id: string, n: number, holdMs: number) => Promise<boolean>;
  sharedCount?: RedisJobStore;
  close(): Promise<void>;
}
