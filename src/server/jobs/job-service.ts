// The job lifecycle, once for both modes: submit, create, cancel, view and events, over the queue port (queue/port.ts).
// Embedded, the local queue holds the work and this process renders it; with REDIS_URL, the BullMQ queue does, and
// any number of API processes and render workers share it. A process that renders runs each item it takes with the
// one item runner (run-item.ts). Every change of a job's record is written by its one owner (job-records.ts); a
// pending job's place and progress are the queue's, read into its view. What only reads or tidies beside the
// lifecycle has its own module: the admission sequence (submit.ts), why work is refused (job-health.ts), the
// ended-jobs cap (ended-cap.ts), the sweep of abandoned segments (segment-sweep.ts). Where outputs live is the output
// store's business, when records go is retention's.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { JobOutput, JobRecord, JobParams, LifecycleStore } from './store/port.js';
import { deadline } from '../../contract/deadline.js';
import { CANCELLED, type JobEnd } from './job-failure.js';
import { admitWork, type WorkAdmission } from './work-admission.js';
import { jobView, type LiveJobState } from './job-view.js';
import type { Renderer, RenderOutcome } from '../../render/renderer-port.js';
import type { JoinSegments } from '../../render/renderer-port.js';
import type { JobView } from '../../contract/job-view.js';
import type { JobKind } from '../../contract/job-kind.js';
import type { AssetStore } from '../storage/asset-store.js';
import type { OutputStore } from '../storage/output-store.js';
import type { Storage } from '../storage/storage.js';
import { queueFull, Refused, type Refusal } from '../../contract/refusals.js';
import { CODE } from '../../contract/error-codes.js';
import type { DiskSpace } from '../storage/disk-space.js';
import { cachedFields, type CacheHit, type RenderCache } from './render-cache.js';
import type { JobLoad, JobQueue } from './queue/port.js';
import { ItemRunner, type ItemEvents } from './run-item.js';
import { JobRecords } from './job-records.js';
import { JobHealth, type StoreLink } from './job-health.js';
import { EndedCap } from './ended-cap.js';
import { sweepStaleSegments } from './segment-sweep.js';
import { newRecord, type JobExtras } from './new-record.js';
import { submit, type SubmitDoor, type Submission } from './submit.js';

export type { JobLoad, JobExtras, StoreLink };

export interface JobServiceOptions {
  store: LifecycleStore;
  queue: JobQueue;
  renderer: Renderer;
  joinSegments: JoinSegments;
  assets: AssetStore;
  outputs: OutputStore;
  /** chunk segments (the storage's `segments` area) */
  segments: Storage;
  jobTimeoutMs: number;
  /** jobs waiting or rendering at most (default: no cap) */
  maxQueuedJobs?: number;
  /** free space on DATA_DIR's disk (default: not watched) */
  disk?: DiskSpace;
  /** ended job records kept at most (MAX_ENDED_JOBS; default: no cap), the oldest-ended go first */
  maxEndedJobs?: number;
  /** local directory a job's downloaded inputs go into while it runs (one subdirectory per item) */
  scratchDir: string;
  /** the render cache (default: none) */
  cache?: RenderCache;
  /** the store items are run against (a render worker's connection that waits out an outage); default: store */
  runStore?: LifecycleStore;
  /** how long records live (RETENTION_MS): segments a crashed process left go once this old */
  retentionMs: number;
  /** whether this process renders: resume() makes it take work from the queue */
  renders: boolean;
  /** with REDIS_URL: the link health and readiness look at */
  link?: StoreLink;
  /**
   * What one queue adapter alone knows, wired by services.ts rather than put on the port. The local queue: its
   * admitted count without asking (a full queue refuses before the body's work), and its render slots, which GET /test
   * shares with the jobs (default: at once). BullMQ: why a pending job can never end on its own (its queue entry
   * failed for good or vanished), read at each get() so none stays pending for ever.
   */
  admittedNow?: () => number;
  renderSlots?: <T>(task: () => Promise<T>) => Promise<T>;
  lost?: (rec: JobRecord) => Promise<JobEnd | undefined>;
  /**
   * Likewise for the stores (JobHealth, EndedCap): the journal's writability, a bucket's probe, and whether the
   * ended-job count lives in this process (locally()), to be rebuilt from the records at start.
   */
  storeWritable?: () => Promise<boolean>;
  storageAnswers?: () => Promise<boolean>;
  endedCountedInProcess?: boolean;
  log: Logger;
  now: () => number;
}

export { CANCELLED };

/**
 * What the job service tells listeners (webhooks, the events stream, metrics):
 * - `changed` (job_id): the job's live state moved (progress), in any process;
 * - `queue`: the line moved (a job was added, started, or ended), so every waiting job's position may have changed;
 * - `ended` (record): this process ended a job (ready or error) and that is stored;
 * - `created` (record): a new job was accepted (an idempotent replay is not one);
 * - `started` (record), `part`: what running an item in this process did (run-item.ts).
 */
export interface JobEvents extends ItemEvents {
  changed: [id: string];
  queue: [];
  created: [rec: JobRecord];
}

/** A job as a client reads it: its record and its public view, with a pending job's live state. */
export interface JobReading {
  rec: JobRecord;
  view: JobView;
}

/** The result of a cancel request. */
export type CancelResult = { ok: true; rec: JobRecord } | { ok: false; reason: 'not_found' | 'ended'; rec?: JobRecord };

export class JobService {
  readonly events = new EventEmitter<JobEvents>();
  readonly runner: ItemRunner;
  /** every change of a job's record is written by it (job-records.ts) */
  private readonly records: JobRecords;
  /** SIGTERM or close: no new job is admitted (503 shutting_down) */
  private stopping = false;
  private readonly checks: JobHealth;
  private readonly endedCap?: EndedCap;

  constructor(private readonly o: JobServiceOptions) {
    // every SSE stream listens; more than the default 10 is normal, not a leak
    this.events.setMaxListeners(0);
    o.queue.events.on('changed', (id) => this.events.emit('changed', id));
    o.queue.events.on('queue', () => this.events.emit('queue'));
    this.events.on('started', () => this.events.emit('queue'));
    this.events.on('ended', (rec) => {
      this.events.emit('changed', rec.job_id);
      this.endedCap?.count(rec);
    });
    this.records = new JobRecords(o.store, o.now);
    this.checks = new JobHealth({ ...o, stopping: () => this.stopping });
    if (o.maxEndedJobs !== undefined)
      this.endedCap = new EndedCap({
        store: o.store,
        outputs: o.outputs,
        max: o.maxEndedJobs,
        countedInProcess: o.endedCountedInProcess ?? false,
        log: o.log,
        now: o.now,
      });
    this.runner = new ItemRunner({
      store: o.runStore ?? o.store,
      renderer: o.renderer,
      joinSegments: o.joinSegments,
      assets: o.assets,
      outputs: o.outputs,
      segments: o.segments,
      cache: o.cache,
      jobTimeoutMs: o.jobTimeoutMs,
      scratch: (name) => join(o.scratchDir, name),
      // the service's emitter carries the runner's events too
      events: this.events as unknown as EventEmitter<ItemEvents>,
      log: o.log,
      now: o.now,
    });
  }

  /** The queue this service stands on (the local one's line, BullMQ's metrics). */
  get queue(): JobQueue {
    return this.o.queue;
  }

  /** At start (after the local queue's recovery, services.ts): the ended records counted for their cap. */
  async init(): Promise<void> {
    await this.endedCap?.seed();
  }

  /**
   * This process renders from now on (its renderer has started): the queue hands it items, the recovered jobs
   * first. Segments a crashed process left behind go once past the retention.
   */
  async resume(): Promise<void> {
    if (this.stopping || !this.o.renders) return;
    await sweepStaleSegments(this.o.segments, this.o.now() - this.o.retentionMs);
    await this.o.queue.consume(this.runner.run);
  }

  /** Stops at once: waiting jobs stay pending, the items in hand are interrupted. */
  async close(): Promise<void> {
    this.stopping = true;
    await this.o.queue.close();
  }

  /**
   * Graceful stop (SIGTERM): no new job is admitted; waiting jobs stay pending; the items in hand get graceMs to
   * finish, then they are handed back (embedded: checkpointed, pending again for the next start; Redis: back in the
   * queue for another worker).
   */
  async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    await this.o.queue.shutdown(graceMs);
  }

  /** Why a new job would be refused now (503), or null when it is welcome (job-health.ts). */
  admission(): Refusal | null {
    return this.checks.admission();
  }

  /**
   * Places left in the queue now under MAX_QUEUED_JOBS (Infinity without a cap), and the cap: a batch is admitted
   * only when all of its rows fit (jobs/batches/submit-batch.ts).
   */
  async room(): Promise<{ left: number; queued: number; cap: number }> {
    const cap = this.o.maxQueuedJobs ?? Infinity;
    const queued = this.o.admittedNow?.() ?? (await this.o.queue.admitted());
    return { left: cap - queued, queued, cap };
  }

  /** Why no job can be stored now (the journal cannot be written, the disk is full), or null. */
  storageRefusal(): Promise<Refusal | null> {
    return this.checks.storageRefusal();
  }

  /** Why the service cannot take work now (/healthz answers 503 with it), or null. */
  health(): Promise<Refusal | null> {
    return this.checks.health();
  }

  /** Why this process cannot take work now (/readyz), or null. */
  ready(): Promise<Refusal | null> {
    return this.checks.ready();
  }

  /** Jobs waiting and rendering now. */
  load(): Promise<JobLoad> {
    return this.o.queue.load();
  }

  /** The job's estimated work, and the refusal when it cannot finish inside the job limit (work-admission.ts). */
  estimate(
    kind: JobKind,
    source: string,
    params: JobParams,
    assets: Record<string, string>,
    args?: Record<string, unknown>,
  ): Promise<WorkAdmission> {
    return admitWork(this.o, kind, source, params, assets, args);
  }

  /**
   * Queues a job from a request that passed its schema, through the whole admission sequence (submit.ts): its id, or
   * an earlier job's with the same Idempotency-Key. Throws a ServiceError (400, 422, 429) or a Refused (503).
   */
  submit(request: Submission, door: SubmitDoor): Promise<string> {
    return submit(this, door, request);
  }

  /**
   * Creates a pending job and queues it; the render runs in the background. work: admission's estimate (the queue's
   * order) and frame count (whether a video is cut in chunks), kept on the record: the source was compiled once, for
   * admission. MAX_QUEUED_JOBS is counted by the queue in one step (across every API process in Redis mode).
   */
  async create(
    kind: JobKind,
    source: string,
    params: JobParams,
    assets: Record<string, string>,
    extras: JobExtras = {},
    work: WorkAdmission = {},
  ): Promise<JobRecord> {
    const rec = newRecord(kind, source, params, assets, extras, work, this.o.now());
    extras.onId?.(rec.job_id);
    // an identical job's output still kept: ready at once, nothing queued (any process may have drawn it)
    const hit = await this.o.cache?.hit(rec, extras.cache !== false);
    const cached = hit && (await this.fromCache(rec, hit));
    if (cached) return cached;
    const cap = this.o.maxQueuedJobs ?? Infinity;
    if (!(await this.o.queue.admit(rec.job_id, cap)))
      throw new Refused(queueFull(await this.o.queue.admitted(), this.o.maxQueuedJobs!));
    try {
      await this.records.create(rec);
      await this.o.queue.enqueue(rec);
    } catch (err) {
      await this.o.queue.unadmit(rec.job_id).catch(() => {});
      throw err;
    }
    this.o.log.info({ job_id: rec.job_id, kind, status: 'pending', event: 'job_created' }, 'job pending');
    this.events.emit('created', rec);
    this.events.emit('queue');
    return rec;
  }

  /**
   * Makes a new job ready from the render cache: its record as it ended (ready, or cancelled while the copy was
   * made), or undefined when the copy could not be made (the job renders). The record is stored pending before the
   * copy is: every process's output budget then counts the copy's name as a rendering job's and never evicts it, so no
   * job is announced ready with a file the budget removed before its record existed.
   */
  private async fromCache(rec: JobRecord, hit: CacheHit): Promise<JobRecord | undefined> {
    await this.records.create(rec);
    let output: JobOutput;
    try {
      output = await this.o.outputs.addCopy(rec.job_id, rec.kind, rec.params, hit.output);
    } catch (err) {
      this.o.log.warn({ err, job_id: rec.job_id }, 'render cache copy failed: the job renders');
      await this.o.outputs.discard(rec.job_id, rec.kind, rec.params);
      // not stored until admitted to render (create() writes it again then)
      await this.records.remove(rec.job_id);
      return undefined;
    }
    const ready = await this.records.ready(rec.job_id, (cur) => cachedFields(cur, output, hit.runner));
    if (!ready) {
      // cancelled while the copy was made: the client was told so, the copy goes
      await this.o.outputs.remove(output);
      return (await this.records.get(rec.job_id)) ?? rec;
    }
    this.o.log.info(
      { job_id: rec.job_id, kind: rec.kind, status: 'ready', event: 'job_cached', total_ms: ready.timings?.total_ms },
      'job ready from the render cache',
    );
    this.events.emit('ended', ready);
    return ready;
  }

  /**
   * Ends a pending or rendering job in error with code `cancelled`: its record first (the first end wins, so a
   * finish racing it loses and its file goes), then its work. A waiting job leaves the line at once; one rendering in
   * this process is stopped, and this resolves once the renderer has let go of its page and encoder and the partial
   * file is gone; one rendering in another process stops at its next progress. `reaches` says whether the caller may
   * see the job at all (else it is not found).
   */
  async cancel(id: string, reaches: (rec: JobRecord) => boolean = () => true): Promise<CancelResult> {
    const rec = await this.records.get(id);
    if (!rec || !reaches(rec)) return { ok: false, reason: 'not_found' };
    if (rec.status !== 'pending') return { ok: false, reason: 'ended', rec };
    const ended = await this.records.fail(id, { message: CANCELLED, code: CODE.cancelled });
    if (!ended) return { ok: false, reason: 'ended', rec: (await this.records.get(id)) ?? rec };
    await this.o.queue.withdraw(id);
    this.o.log.info({ job_id: id, kind: rec.kind, status: 'error', event: 'job_cancelled' }, 'job cancelled');
    this.events.emit('ended', ended);
    this.events.emit('queue');
    return { ok: true, rec: ended };
  }

  /** The record, or undefined; a pending one whose queue entry failed for good or vanished ends here. */
  async get(id: string): Promise<JobRecord | undefined> {
    const rec = await this.records.get(id);
    if (!rec || rec.status !== 'pending') return rec;
    // so none stays pending for ever
    const lost = await this.o.lost?.(rec);
    if (!lost) return rec;
    const ended = await this.records.fail(id, lost);
    if (!ended) return this.records.get(id);
    this.events.emit('ended', ended);
    return ended;
  }

  /**
   * The public view of a record as it stands; a pending job's place in the queue and progress are the queue's live
   * state (`live`, as viewNow() reads it), never kept on the record.
   */
  view(rec: JobRecord, live: LiveJobState = {}): JobView {
    return jobView(rec, rec.status === 'pending' ? live : {});
  }

  /** The public view, with a pending job's place and progress read from the queue now. */
  async viewNow(rec: JobRecord): Promise<JobView> {
    return this.view(rec, rec.status === 'pending' ? await this.o.queue.live(rec) : {});
  }

  /** A job as a client reads it (GET /v1/jobs/{id}, its events): the record and its view now; undefined: unknown. */
  async read(id: string): Promise<JobReading | undefined> {
    const rec = await this.get(id);
    return rec && { rec, view: await this.viewNow(rec) };
  }

  /** Renders outside the store (GET /test), in this process; the local queue runs it in its render slots. */
  renderDirect(kind: JobKind, source: string, params: JobParams, outPath: string): Promise<RenderOutcome> {
    const slots = this.o.renderSlots ?? (<T>(task: () => Promise<T>) => task());
    return slots(async () => {
      const ctl = new AbortController();
      const limit = deadline(ctl, this.o.jobTimeoutMs);
      try {
        return await this.o.renderer.render(
          { id: randomUUID(), kind, source, params, assets: {}, outPath },
          { signal: ctl.signal },
        );
      } finally {
        limit.clear();
      }
    });
  }
}
