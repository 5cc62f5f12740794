// What a mode of the service gives the job service: its records, its queue, its idempotency keys and, in Redis mode,
// the shared connection and counts. Built by services.ts (embedded: the journal and the local queue) or by
// redis/redis-backend.ts (REDIS_URL). What one adapter alone can do (the local queue's slots, the journal's
// writability, Redis's keeping of pending records, BullMQ's lost entries) is an optional part of this wiring, which
// services.ts hands to the code that uses it, so the ports (jobs/store/port.ts, jobs/queue/port.ts) stay whole and
// services.ts never asks which adapter it holds.
import type { Redis } from 'ioredis';
import type { JobRecord, JobStore, LifecycleStore } from './jobs/store/port.js';
import type { JobQueue } from './jobs/queue/port.js';
import type { BullmqQueue } from './jobs/queue/bullmq.js';
import type { JobEnd } from './jobs/job-failure.js';
import type { StoreLink } from './jobs/job-health.js';
import type { OutputStore, SharedByteCount } from './storage/output-store.js';
import type { IdempotencyKeys } from './jobs/idempotency.js';
import type { BatchStore } from './jobs/batches/batch-store.js';

/** Where a mode keeps its records and work: the journal and the local queue, or Redis and BullMQ (redis/redis-backend.ts). */
export interface Backend {
  store: LifecycleStore;
  /** the store as the byte count, retention and webhooks use it */
  plain: JobStore;
  /** the queue, over the output store (the local queue discards what a stopped job left) */
  queue(outputs: OutputStore): QueueWiring;
  runStore?: LifecycleStore;
  /** BullMQ's queue as the composition roots read it (its Prometheus export, the items in hand, whether it takes work) */
  bullmq?: Pick<BullmqQueue, 'metrics' | 'inProgress' | 'consuming'>;
  redis?: Redis;
  link?: StoreLink;
  idempotency: (now: () => number) => IdempotencyWiring;
  /** where batch records are kept (jobs/batches/batch-store.ts) */
  batches: BatchStore;
  claimAttempt?: (id: string, n: number, holdMs: number) => Promise<boolean>;
  /** Redis: the output bytes counted once for every process that shares the storage */
  sharedCount?: SharedByteCount;
  /** the journal: whether a change can be written now (a full disk refuses jobs with journal_unwritable) */
  storeWritable?: () => Promise<boolean>;
  /** Redis: pending records expire on their own unless those of live jobs are kept alive this often */
  keepPending?: { everyMs: number; run(): Promise<void> };
  /** the ended-job count lives in this process (locally()) and is rebuilt from the records at start */
  endedCountedInProcess: boolean;
  close(): Promise<void>;
}

/** A mode's queue and what its adapter alone knows. */
export interface QueueWiring {
  queue: JobQueue;
  /** the local queue: its admitted count, read without asking */
  admittedNow?: () => number;
  /** the local queue: its render slots, which GET /test shares with the jobs */
  renderSlots?: <T>(task: () => Promise<T>) => Promise<T>;
  /** the local queue: an ended job no longer counts against MAX_QUEUED_JOBS */
  ended?: (id: string) => void;
  /** the local queue: the journal's pending jobs queued again at start */
  recover?: () => Promise<void>;
  /** BullMQ: why a pending job can never end on its own (its entry failed for good or vanished) */
  lost?: (rec: JobRecord) => Promise<JobEnd | undefined>;
}

/** A mode's idempotency keys, and (this process's index over the journal) their rebuild from the records at start. */
export interface IdempotencyWiring {
  keys: IdempotencyKeys & { remember?: (key: string, hash: string, at: number, id: string) => void };
  seed?: (records: readonly JobRecord[]) => void;
}
