// The queue port: what the one job service (job-service.ts) asks of whatever holds its work. Two adapters implement
// it: the local queue (jobs/queue/local.ts: one process, its fair queue, abort controllers and the journal's
// recovery) and the BullMQ queue (jobs/queue/bullmq.ts: Redis, shared by API processes and render workers). Either
// hands each item it runs to the one item runner (jobs/run-item.ts).
import type { EventEmitter } from 'node:events';
import type { JobRecord } from '../store/port.js';
import type { LiveJobState } from '../job-view.js';
import type { ChunkResult, WorkItem } from '../work-items.js';
import type { JobEnd } from '../job-failure.js';

/** Jobs waiting and rendering now (in Redis mode: the shared queue's items). */
export interface JobLoad {
  waiting: number;
  running: number;
}

/**
 * Why the queue stopped an item it had handed out: `ended` (its job ended meanwhile: a cancel), `hand_back` (a
 * shutdown past its grace: the item goes back to the queue, or its job back to pending, as if never taken),
 * `interrupt` (the process closes: the job ends in error).
 */
export type StopReason = 'ended' | 'hand_back' | 'interrupt';

/** What the queue gives the item runner with each item. */
export interface ItemHandle {
  /** aborted when the queue stops the item; stopReason() says why */
  readonly signal: AbortSignal;
  stopReason(): StopReason | undefined;
  /** progress of the item: `p` of 0..1, `frames` the frames done (what a chunk counts) */
  report(p: number, frames: number): void;
  /** a join's chunk results (in no particular order) */
  chunkResults(): Promise<ChunkResult[]>;
}

/** How an item ended: kept (a chunk hands on its result), the job ended in error, stopped, or handed back. */
export type ItemOutcome =
  | { status: 'ready'; result?: ChunkResult }
  | { status: 'error'; message: string }
  | { status: 'stopped' }
  | { status: 'handed_back' };

export type RunItem = (item: WorkItem, handle: ItemHandle) => Promise<ItemOutcome>;

/** What the queue tells the service, from any process: `changed` (a job's live state moved), `queue` (the line moved). */
export interface QueueEvents {
  changed: [id: string];
  queue: [];
}

export interface JobQueue {
  readonly events: EventEmitter<QueueEvents>;
  /** At start: the local queue recovers the journal's jobs (queued by resume()); the BullMQ queue has nothing to do. */
  init(): Promise<void>;
  /** Counts a new job against MAX_QUEUED_JOBS, exactly, across every process that admits; false at the cap. */
  admit(id: string, cap: number): Promise<boolean>;
  /** A job admitted that will not be queued after all (its record could not be written). */
  unadmit(id: string): Promise<void>;
  /** How many jobs are admitted and not ended (the 503 queue_full message). */
  admitted(): Promise<number>;
  /** The same, where this process knows it without asking (the local queue), so a full queue refuses before work. */
  admittedNow(): number | undefined;
  /** A job ended in this process (ready or error): it no longer counts against MAX_QUEUED_JOBS. */
  ended(id: string): void;
  /** Queues a new pending job at its place in the fair order: in one piece, or as chunks plus a join. */
  enqueue(rec: JobRecord): Promise<void>;
  /**
   * Its job has ended (a cancel): its waiting items leave the line, and those in this process's hands are stopped
   * (`ended`); resolves once they have let go of their page and partial files. Elsewhere, an item in hand notices
   * at its next progress.
   */
  withdraw(id: string): Promise<void>;
  /** A pending job's place in line and progress. */
  live(rec: JobRecord): Promise<LiveJobState>;
  /** Why a pending job can never end on its own (its queue entry failed for good or vanished), or undefined. */
  lost(rec: JobRecord): Promise<JobEnd | undefined>;
  load(): Promise<JobLoad>;
  /** Starts taking items, running each with `run` (a process that renders; called once its renderer is up). */
  consume(run: RunItem): Promise<void>;
  /** GET /test: a render outside the records, in this process (the local queue: in the same render slots). */
  direct<T>(task: () => Promise<T>): Promise<T>;
  /** Graceful stop: no more items taken; those in hand get graceMs, then are handed back. */
  shutdown(graceMs: number): Promise<void>;
  /** Stops at once: items in hand are interrupted (their jobs end in error); connections close. */
  close(): Promise<void>;
}
