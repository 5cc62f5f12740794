// The local adapter of the queue port (embedded mode: one process). Its items wait in the fair queue (fair-order.ts) and
// run in this process's render slots; a chunked video's chunks run like any item (several at once when there are
// several slots) and its join goes first once the last chunk is done. What is live (progress, who holds what) is held
// here; what lasts is the journal's: at start the jobs the last run left pending are queued again (recovery.ts), and a
// graceful stop checkpoints the jobs in hand (pending again, as if never started) for the next start. Besides the
// port it does what only one process holding the whole line can (services.ts wires them): recover() at start,
// admittedNow() without asking, ended() the moment a record ends, direct() for GET /test in the same render slots.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { FairOrder } from './fair-order.js';
import { settleWithin } from '../../../contract/settle-within.js';
import type { JobRecord, LifecycleStore } from '../store/port.js';
import type { OutputStore } from '../../storage/output-store.js';
import type { LiveJobState } from '../job-view.js';
import { ItemsInHand, type ItemOutcome, type JobLoad, type JobQueue, type QueueEvents, type RunItem } from './port.js';
import { itemsOf, type ChunkResult, type WorkItem } from '../work-items.js';
import { planRecovery } from '../../durability/recovery.js';
import { JobRecords } from '../job-records.js';

export interface LocalQueueOptions {
  store: LifecycleStore;
  outputs: OutputStore;
  concurrency: number;
  log: Logger;
  now: () => number;
}

/** What this process knows of a queued job while it has items left. */
interface Tracked {
  frames?: number;
  /** chunks done, by index */
  results: ChunkResult[];
  chunks: number;
  /** a whole item's 0..1 */
  progress: number;
  /** each chunk's frames done (a chunk done: its own frames, never the clip's) */
  chunkFrames: Map<number, number>;
  /** the job's estimated seconds (admission's), shared by its chunks */
  cost: number;
  /** an item of it has been taken: it is in hand until its last item ends */
  begun: boolean;
}

export class LocalQueue implements JobQueue {
  readonly events = new EventEmitter<QueueEvents>();
  readonly line: FairOrder;
  private readonly admittedIds = new Set<string>();
  private readonly tracked = new Map<string, Tracked>();
  private readonly inHand = new ItemsInHand();
  private run: RunItem | null = null;
  private closing = false;
  private readonly records: JobRecords;

  constructor(private readonly o: LocalQueueOptions) {
    this.records = new JobRecords(o.store, o.now);
    this.line = new FairOrder(o.concurrency, o.now);
    // nothing runs before consume(): jobs posted while the renderer warms up wait in the line, with their place
    this.line.hold();
  }

  /**
   * From the stored records (durability/recovery.ts): pending jobs are queued again in created_at order, ahead of
   * any job posted since (the line starts once consume() does); the one that was rendering when the service stopped
   * is queued once more, or ends in error if it already was. Called once, before the service starts (services.ts).
   */
  async recover(): Promise<void> {
    const plan = planRecovery(await this.records.list(), this.o.now());
    for (const rec of plan.updates) {
      await this.records.recovered(rec);
      // the cut render left at most a partial file: it goes (a requeued job writes it again)
      await this.o.outputs.discard(rec.job_id, rec.kind, rec.params);
    }
    for (const id of plan.failed)
      this.o.log.warn(
        { job_id: id, status: 'error', event: 'job_interrupted' },
        'job interrupted twice: ended in error',
      );
    for (const id of plan.requeue) {
      const rec = await this.records.get(id);
      if (rec?.status === 'pending') await this.enqueue(rec);
    }
    if (plan.requeue.length || plan.failed.length)
      this.o.log.info(
        { requeued: plan.requeue.length, failed: plan.failed.length, event: 'jobs_recovered' },
        'jobs recovered from the journal',
      );
  }

  async admit(id: string, cap: number): Promise<boolean> {
    if (this.admittedIds.size >= cap) return false;
    this.admittedIds.add(id);
    return true;
  }

  async unadmit(id: string): Promise<void> {
    this.admittedIds.delete(id);
  }

  async admitted(): Promise<number> {
    return this.admittedIds.size;
  }

  /** The admitted count, known here without asking: a full queue is refused before the body's work (JobService). */
  admittedNow(): number {
    return this.admittedIds.size;
  }

  /** A job ended in this process (ready or error): it no longer counts against MAX_QUEUED_JOBS. */
  ended(id: string): void {
    // the moment its record ends, before its item has let go: a client that saw it end may post the next at once
    this.admittedIds.delete(id);
  }

  async enqueue(rec: JobRecord): Promise<void> {
    this.admittedIds.add(rec.job_id);
    const items = itemsOf(rec);
    const cost = rec.estimate_s ?? 0;
    const chunks = 'chunks' in items ? items.chunks : [items.whole];
    this.tracked.set(rec.job_id, {
      frames: rec.frames,
      results: [],
      chunks: 'chunks' in items ? items.chunks.length : 0,
      progress: 0,
      chunkFrames: new Map(),
      cost,
      begun: false,
    });
    for (const item of chunks) this.add(item, cost, false, rec.batch_id);
    this.events.emit('queue');
  }

  private add(item: WorkItem, cost: number, first = false, group?: string): void {
    void this.line
      .add(item.id, () => this.runItem(item), cost, first, group)
      .catch((err) => this.o.log.error({ err, job_id: item.id }, 'job runner crashed'));
  }

  private async runItem(item: WorkItem): Promise<void> {
    const run = this.run;
    if (this.closing || !run) return;
    const job = this.tracked.get(item.id);
    if (job) job.begun = true;
    const outcome = this.inHand.take(item.id, (stop) =>
      run(item, {
        ...stop,
        report: (p, frames) => this.report(item, p, frames),
        chunkResults: async () => this.tracked.get(item.id)?.results ?? [],
      }).catch((err): ItemOutcome => {
        this.o.log.error({ err, job_id: item.id }, 'job runner crashed');
        return { status: 'error', message: String(err) };
      }),
    );
    try {
      await this.after(item, await outcome);
    } finally {
      // the line moves when an item leaves it (the next job's start tells again once it is in hand)
      this.events.emit('queue');
    }
  }

  private async after(item: WorkItem, outcome: ItemOutcome): Promise<void> {
    const id = item.id;
    const job = this.tracked.get(id);
    if (outcome.status === 'handed_back') {
      await this.checkpoint(id);
      return;
    }
    if (outcome.status !== 'ready') {
      // the job has ended (in error, or before this item): what is left of it goes
      this.line.remove(id);
      void this.inHand.stop('ended', (key) => key === id);
      this.forget(id);
      return;
    }
    if (item.part === 'chunk' && job && outcome.result) {
      job.results[item.index] = outcome.result;
      job.chunkFrames.set(item.index, item.to - item.from);
      if (job.results.filter(Boolean).length === job.chunks)
        this.add({ id, part: 'join', chunks: job.chunks, frames: job.frames ?? 0 }, 0, true);
      // the chunks left wait as one chunk's work from now: a job posted meanwhile goes between two chunks
      else this.line.restamp(id, job.cost / job.chunks);
      return;
    }
    this.forget(id);
  }

  private forget(id: string): void {
    this.tracked.delete(id);
    this.admittedIds.delete(id);
  }

  /** A job in hand at a graceful stop: pending again, as if it had never started (a stop is not an interruption). */
  private async checkpoint(id: string): Promise<void> {
    if (!this.tracked.has(id)) return;
    this.tracked.delete(id);
    const rec = await this.records
      .unstart(id)
      .catch((err) => this.o.log.error({ err, job_id: id }, 'checkpoint failed'));
    if (!rec) return;
    this.o.log.warn({ job_id: id, event: 'job_checkpointed' }, 'shutdown: the job is checkpointed for the next start');
    await this.o.outputs.discard(id, rec.kind, rec.params);
  }

  private report(item: WorkItem, p: number, frames: number): void {
    const job = this.tracked.get(item.id);
    if (!job) return;
    if (item.part === 'chunk') job.chunkFrames.set(item.index, frames);
    else if (item.part === 'whole') job.progress = p;
    this.events.emit('changed', item.id);
  }

  async withdraw(id: string): Promise<void> {
    this.line.remove(id);
    await this.inHand.stop('ended', (key) => key === id);
    this.forget(id);
    this.events.emit('queue');
  }

  async live(rec: JobRecord): Promise<LiveJobState> {
    const id = rec.job_id;
    const job = this.tracked.get(id);
    // started (a chunked video between two chunks too): out of the line
    const queuePosition =
      rec.started_at !== undefined && job ? 0 : this.line.position(id, (other) => this.begun(other));
    let progress = job?.progress ?? 0;
    if (job?.chunks && rec.frames) {
      // frames done over every chunk's (a done chunk's result counts the whole clip's frames, not its own)
      let done = 0;
      for (const f of job.chunkFrames.values()) done += f;
      progress = Math.min(1, done / rec.frames);
    }
    return { queuePosition, progress };
  }

  async load(): Promise<JobLoad> {
    return { waiting: this.line.size - this.line.inHand, running: this.line.inHand };
  }

  async consume(run: RunItem): Promise<void> {
    this.run = run;
    if (this.closing) return;
    this.line.release();
  }

  /** GET /test: a render outside the records, in the same render slots as the jobs (wired by services.ts). */
  direct<T>(task: () => Promise<T>): Promise<T> {
    return this.line.add(randomUUID(), task);
  }

  private begun(id: string): boolean {
    return this.tracked.get(id)?.begun === true;
  }

  /**
   * Graceful stop (SIGTERM): the jobs not begun stay pending in the store (queued again at the next start); the jobs
   * in hand (an item rendering, or a video with chunks or its join left) get graceMs to finish, then their items are
   * stopped and the jobs checkpointed.
   */
  async shutdown(graceMs: number): Promise<void> {
    const dropped = this.line.removeWhere((id) => !this.begun(id));
    if (dropped)
      this.o.log.info({ items: dropped, event: 'queue_checkpointed' }, 'waiting jobs stay pending for the next start');
    if (!(await settleWithin(this.line.onIdle(), graceMs))) {
      this.closing = true;
      this.line.clear();
      await this.inHand.stop('hand_back');
    }
    this.closing = true;
    for (const id of [...this.tracked.keys()]) await this.checkpoint(id);
  }

  /** The port's close: waiting jobs stay pending (queued again at the next start), the items in hand are interrupted. */
  async close(): Promise<void> {
    this.closing = true;
    this.line.clear();
    await this.inHand.stop('interrupt');
  }
}
