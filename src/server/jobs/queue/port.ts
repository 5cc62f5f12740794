// The queue port: what the one job service (job-service.ts) asks of whatever holds its work, and nothing that only
// one adapter means. Two adapters implement it, and test/server/jobs/queue/queue-conformance.test.ts runs the same cases
// against both: the local queue (local.ts: one process, the fair order of fair-order.ts, the journal's recovery) and
// the BullMQ queue (bullmq.ts: Redis, shared by API processes and render workers). Either hands each item it runs to
// the one item runner (run-item.ts) with an ItemHandle. What one adapter alone does (the local queue's recovery, its
// count known without asking, its render slots for GET /test; BullMQ's lost entries) is wired where the service is
// composed (services.ts), not here.
import type { EventEmitter } from 'node:events';
import type { JobRecord } from '../store/port.js';
import type { LiveJobState } from '../job-view.js';
import type { ChunkResult, WorkItem } from '../work-items.js';

/** Jobs waiting and rendering now (in Redis mode: the shared queue's items). */
export interface JobLoad {
  waiting: number;
  running: number;
}

/**
 * Why the queue stopped an item it had handed out: `ended` (its job ended meanwhile: a cancel), `hand_back` (a
 * shutdown past its grace: the item goes back to the queue, or its job back to pending, as if never taken),
 * `interrupt` (a close: the job ends in error, `interrupted`).
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
  /** Counts a new job against MAX_QUEUED_JOBS, exactly, across every process that admits; false at the cap. */
  admit(id: string, cap: number): Promise<boolean>;
  /** A job admitted that will not be queued after all (its record could not be written). */
  unadmit(id: string): Promise<void>;
  /** How many jobs are admitted and not ended (the 503 queue_full message). */
  admitted(): Promise<number>;
  /** Queues a new pending job at its place in the fair order: in one piece, or as chunks plus a join. */
  enqueue(rec: JobRecord): Promise<void>;
  /**
   * Its job has ended (a cancel): its waiting items leave the line, and those in this process's hands are stopped
   * (`ended`); resolves once they have let go of their page and partial files. Those another process holds are told
   * by the queue (BullMQ: its event stream) and stopped (`ended`) there: no item reads its record to learn it.
   */
  withdraw(id: string): Promise<void>;
  /** A pending job's place in line and progress. */
  live(rec: JobRecord): Promise<LiveJobState>;
  load(): Promise<JobLoad>;
  /** Starts taking items, running each with `run` (a process that renders; called once its renderer is up). */
  consume(run: RunItem): Promise<void>;
  /** Graceful stop: no more items taken; those in hand get graceMs, then are handed back. */
  shutdown(graceMs: number): Promise<void>;
  /**
   * Stops at once, in both adapters alike: no more items taken; waiting items stay (their jobs pending); the items in
   * hand are interrupted (their jobs end in error, `interrupted`) without waiting for a renderer that ignores the
   * stop; what the queue opened is closed. A process that means to hand its work back calls shutdown() first.
   */
  close(): Promise<void>;
}

/**
 * The items a process holds now, each with the way to stop it: written once for both adapters. A job's key is its
 * id (the local queue) or its queue entry's (BullMQ: a chunk's is the job id + "-c" + index).
 */
export class ItemsInHand {
  private readonly held = new Map<string, Set<Held>>();

  /** Hands `run` its item with a handle whose signal this keeps; the entry goes when the outcome settles. */
  take(
    key: string,
    run: (handle: Pick<ItemHandle, 'signal' | 'stopReason'>) => Promise<ItemOutcome>,
  ): Promise<ItemOutcome> {
    const ctl = new AbortController();
    let reason: StopReason | undefined;
    const outcome = run({ signal: ctl.signal, stopReason: () => reason });
    const entry: Held = {
      stop: (r) => {
        reason ??= r;
        ctl.abort(new Error(r));
      },
      done: outcome,
    };
    const set = this.held.get(key) ?? new Set();
    set.add(entry);
    this.held.set(key, set);
    const leave = () => {
      set.delete(entry);
      if (!set.size && this.held.get(key) === set) this.held.delete(key);
    };
    outcome.then(leave, leave);
    return outcome;
  }

  /** Stops the items whose key `which` picks (every one when absent); resolves once they have all settled. */
  async stop(reason: StopReason, which: (key: string) => boolean = () => true): Promise<void> {
    const picked = [...this.held.entries()].filter(([key]) => which(key)).flatMap(([, set]) => [...set]);
    for (const h of picked) h.stop(reason);
    await Promise.allSettled(picked.map((h) => h.done));
  }

  /** How many items are held now. */
  get size(): number {
    let n = 0;
    for (const set of this.held.values()) n += set.size;
    return n;
  }
}

interface Held {
  stop(reason: StopReason): void;
  done: Promise<unknown>;
}
