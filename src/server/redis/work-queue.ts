// The BullMQ queue every API process adds to and every render worker takes from (with REDIS_URL). A job that draws
// in one piece is one queue job (id = the job id). A video of more than one chunk (src/contract/chunks.ts) is a flow:
// a parent "join" job (id = the job id) waiting on one child per chunk (id = job id + "-c" + index); any worker
// renders a chunk into a segment, the worker that gets the parent once every child is done joins them.
import { Redis } from 'ioredis';
import { FlowProducer, PRIORITY_LIMIT, Queue } from 'bullmq';
import { chunkRanges, isChunked } from '../../contract/chunks.js';
import type { JobRecord } from '../jobs/store.js';

export const QUEUE_NAME = 'cmrender';

export type WorkData =
  | { id: string; part: 'whole' }
  | { id: string; part: 'chunk'; index: number; from: number; to: number }
  | { id: string; part: 'join'; chunks: number; frames: number };

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

export const chunkJobId = (id: string, index: number) => `${id}-c${index}`;

/** The storage key (in the storage's `segments` area) of chunk `index` of job `id` (under the job's own key, removed whole after the join). */
export const segmentKey = (id: string, index: number) => `${id}/${String(index).padStart(4, '0')}.ts`;

/**
 * The fair queue in Redis mode, the embedded one's policy (jobs/queue.ts: shortest estimated work first, aged one
 * second of estimate per second waited). That order is a job's arrival plus its estimate, fixed when it is queued, so
 * it becomes BullMQ's priority (lower first): seconds since a base, plus the estimate in seconds. BullMQ's priorities
 * are integers below 2^21 (24 days of seconds): the base moves to now whenever nothing waits by priority, and a
 * job past the top takes the top (first come, first served among such). A video's chunks share their job's priority;
 * its join has none, so BullMQ takes it before any waiting job (it ends a job already begun, in half a second).
 *
 * KEYS[1] the base, KEYS[2] BullMQ's prioritized set; ARGV[1] now in seconds. Returns the base.
 */
const PRIORITY_BASE = `
local base = redis.call('GET', KEYS[1])
if not base or redis.call('ZCARD', KEYS[2]) == 0 then
  redis.call('SET', KEYS[1], ARGV[1])
  return tonumber(ARGV[1])
end
return tonumber(base)
`;
const BASE_KEY = 'cmrender:priority-base';

/** The BullMQ priority of a job that arrived at `createdAt` (ms) with an estimate of `costSeconds`. */
export function priorityOf(createdAt: number, costSeconds: number, baseSeconds: number): number {
  const p = 1 + Math.floor(createdAt / 1000 - baseSeconds + Math.max(0, costSeconds));
  return Math.min(PRIORITY_LIMIT, Math.max(1, p));
}

/** Queue options shared by every job: keep finished queue jobs briefly (the record is what clients read). */
const JOB_OPTS = { removeOnComplete: { age: 3600 }, removeOnFail: { age: 24 * 3600 } } as const;

export class WorkQueue {
  readonly queue: Queue<WorkData>;
  private readonly flows: FlowProducer;

  constructor(readonly connection: Redis) {
    this.queue = new Queue<WorkData>(QUEUE_NAME, { connection });
    this.flows = new FlowProducer({ connection });
  }

  /**
   * Queues a new job at its place in the fair order: in one piece, or (a video of more than one chunk) as a parent and
   * its chunks. The record carries admission's frame count and estimate.
   */
  async add(rec: JobRecord): Promise<void> {
    const id = rec.job_id;
    const frames = rec.frames;
    const base = (await this.connection.eval(
      PRIORITY_BASE,
      2,
      BASE_KEY,
      this.queue.keys.prioritized!,
      String(Math.floor(rec.created_at / 1000)),
    )) as number;
    const priority = priorityOf(rec.created_at, rec.estimate_s ?? 0, base);
    if (rec.kind !== 'video' || frames === undefined || !isChunked(frames)) {
      await this.queue.add('whole', { id, part: 'whole' }, { ...JOB_OPTS, jobId: id, priority });
      return;
    }
    const ranges = chunkRanges(frames);
    await this.flows.add({
      name: 'join',
      queueName: QUEUE_NAME,
      data: { id, part: 'join', chunks: ranges.length, frames },
      opts: { ...JOB_OPTS, jobId: id },
      children: ranges.map((r, index) => ({
        name: 'chunk',
        queueName: QUEUE_NAME,
        data: { id, part: 'chunk', index, from: r.from, to: r.to },
        // a chunk that fails for good fails its parent (the record already says why)
        opts: { ...JOB_OPTS, jobId: chunkJobId(id, index), failParentOnFailure: true, priority },
      })),
    });
  }

  async close(): Promise<void> {
    await this.flows.close();
    await this.queue.close();
  }
}
