// The job lifecycle, once for both modes: admit, create, cancel, view, events and health, over the queue port
// (queue/port.ts). Embedded, the local queue holds the work and this process renders it; with REDIS_URL, the BullMQ
// queue does, and any number of API processes and render workers share it. A process that renders runs each item it
// takes with the one item runner (run-item.ts). Where outputs live is the output store's business, when records go
// is retention's.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { JobOutput, JobRecord, JobParams, WebhookState, LifecycleStore } from './store/port.js';
import { deadline } from '../../contract/deadline.js';
import { CANCELLED, type JobEnd } from './job-failure.js';
import { admitWork, type WorkAdmission } from './work-admission.js';
import { jobView, type LiveJobState } from './job-view.js';
import type { Renderer, RenderOutcome } from '../../render/renderer-port.js';
import type { JoinSegments } from '../../render/segment-join.js';
import type { JobKind, JobView } from '../http/schemas/jobs.js';
import type { AssetStore } from '../storage/asset-store.js';
import type { OutputStore } from '../storage/output-store.js';
import type { Storage } from '../storage/storage.js';
import {
  diskFull,
  journalUnwritable,
  queueFull,
  redisUnavailable,
  storageUnavailable,
  Refused,
  rendererUnavailable,
  shuttingDown,
  type Refusal,
} from '../durability/admission.js';
import { CODE } from '../../contract/error-codes.js';
import type { DiskSpace } from '../storage/disk-space.js';
import { cachedFields, type CacheHit, type RenderCache } from './render-cache.js';
import type { JobLoad, JobQueue } from './queue/port.js';
import { ItemRunner, type ItemEvents } from './run-item.js';
import { endJob } from './end-job.js';

export type { JobLoad };

/** A shared store's link (Redis): whether it is up now, and whether it answers within a second. */
export interface StoreLink {
  up(): boolean;
  ping(): Promise<boolean>;
}

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
  log: Logger;
  now: () => number;
}

export { CANCELLED };

/** The live state (place in line, progress) a get() read with a pending record, on that record object. */
const LIVE = Symbol('live job state');

/** What a client may attach to a new job besides its body (webhooks, idempotency). */
export interface JobExtras {
  webhook?: WebhookState;
  idempotency?: { key: string; hash: string };
  /** false: render afresh, not from the render cache (Cache-Control: no-cache, params.cache false); it still fills it */
  cache?: boolean;
  /** the id of the API key the job was made with (http/tenancy.ts) */
  owner?: string;
  /**
   * Called with the new job's id before its record is stored, so whatever the caller holds for the job (a client's
   * queue place) is bound to it before the job can end: a cache hit ends in create() itself.
   */
  onId?: (id: string) => void;
}

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

/** A new pending job's record: what the client sent, and what admission learnt of it (estimate, frames). */
export function newRecord(
  kind: JobKind,
  source: string,
  params: JobParams,
  assets: Record<string, string>,
  extras: JobExtras,
  work: WorkAdmission,
  now: number,
): JobRecord {
  const { cache: _useCache, onId: _onId, ...kept } = extras;
  return {
    job_id: randomUUID(),
    kind,
    status: 'pending',
    created_at: now,
    source,
    params,
    assets,
    ...kept,
    ...(work.seconds !== undefined && Number.isFinite(work.seconds) ? { estimate_s: work.seconds } : {}),
    ...(work.frames !== undefined ? { frames: work.frames } : {}),
  };
}

/** The result of a cancel request. */
export type CancelResult = { ok: true; rec: JobRecord } | { ok: false; reason: 'not_found' | 'ended'; rec?: JobRecord };

export class JobService {
  readonly events = new EventEmitter<JobEvents>();
  readonly runner: ItemRunner;
  /** SIGTERM or close: no new job is admitted (503 shutting_down) */
  private stopping = false;

  constructor(private readonly o: JobServiceOptions) {
    // every SSE stream listens; more than the default 10 is normal, not a leak
    this.events.setMaxListeners(0);
    o.queue.events.on('changed', (id) => this.events.emit('changed', id));
    o.queue.events.on('queue', () => this.events.emit('queue'));
    this.events.on('started', () => this.events.emit('queue'));
    this.events.on('ended', (rec) => {
      this.events.emit('changed', rec.job_id);
      if (o.maxEndedJobs !== undefined) this.keepEnded(rec);
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

  /**
   * Counts an ended job against MAX_ENDED_JOBS: past it, the record (and output) of the job that ended first goes,
   * so memory, the journal and Redis are bounded by configuration, not by how fast clients POST. In Redis mode the
   * count is shared: whichever process ends a job evicts what it pushes past the cap.
   */
  private keepEnded(rec: JobRecord): void {
    const cap = this.o.maxEndedJobs ?? Infinity;
    void this.o.store
      .keepEnded(rec.job_id, rec.completed_at ?? this.o.now(), cap)
      .then((gone) => Promise.all(gone.map((id) => this.evict(id))))
      .catch((err) => this.o.log.warn({ err, job_id: rec.job_id }, 'evicting a record failed'));
  }

  private async evict(id: string): Promise<void> {
    const rec = await this.o.store.get(id);
    if (!rec || rec.status === 'pending') return;
    await this.o.store.delete(id);
    if (rec.output) await this.o.outputs.remove(rec.output);
    this.o.log.info({ job_id: id, event: 'job_evicted' }, 'ended job record evicted (MAX_ENDED_JOBS)');
  }

  /** At start (after the local queue's recovery, services.ts): the ended records counted for their cap. */
  async init(): Promise<void> {
    if (this.o.maxEndedJobs === undefined || !this.o.store.endedInMemory) return;
    const ended = (await this.o.store.list())
      .filter((r) => r.status !== 'pending')
      .sort((a, b) => (a.completed_at ?? a.created_at) - (b.completed_at ?? b.created_at));
    for (const r of ended) this.keepEnded(r);
  }

  /**
   * This process renders from now on (its renderer has started): the queue hands it items, the recovered jobs
   * first. Segments a crashed process left behind go once past the retention.
   */
  async resume(): Promise<void> {
    if (this.stopping || !this.o.renders) return;
    const cutoff = this.o.now() - this.o.retentionMs;
    for (const job of await this.o.segments.list()) {
      const times = [];
      for (const key of await this.o.segments.list(job)) times.push((await this.o.segments.stat(key))?.mtimeMs ?? 0);
      if (Math.max(0, ...times) <= cutoff) await this.o.segments.remove(job);
    }
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

  /** Why a new job would be refused now (503), or null when it is welcome. */
  admission(): Refusal | null {
    if (this.stopping) return shuttingDown();
    const cap = this.o.maxQueuedJobs;
    const queued = this.o.admittedNow?.();
    if (cap !== undefined && queued !== undefined && queued >= cap) return queueFull(queued, cap);
    return this.o.outputs.refusal();
  }

  /** Why no job can be stored now (the journal cannot be written, the disk is full), or null. */
  async storageRefusal(): Promise<Refusal | null> {
    if (this.o.store.writable && !(await this.o.store.writable())) return journalUnwritable();
    // the output budget as every process has filled it (admission() and health() read it next)
    await this.o.outputs.refreshCount();
    const disk = this.o.disk;
    if (disk && (await disk.short())) return diskFull(await disk.free(), disk.minFreeBytes);
    return null;
  }

  /** Why the service cannot take work now (/healthz answers 503 with it), or null. A full queue is not counted. */
  async health(): Promise<Refusal | null> {
    if (this.stopping) return shuttingDown();
    if (this.o.link && !this.o.link.up()) return redisUnavailable();
    // a process that renders reports its own renderer; one that renders nothing has none started
    const fault = this.o.renderer.fault?.();
    if (fault) return rendererUnavailable(fault);
    return (await this.storageRefusal()) ?? this.o.outputs.refusal();
  }

  /**
   * Why this process cannot take work now (/readyz): health(), and each shared store (Redis, a bucket) answering
   * within a second. A bucket that does not answer is not a liveness failure (/healthz): a restart would not mend it.
   */
  async ready(): Promise<Refusal | null> {
    const down = await this.health();
    if (down) return down;
    if (this.o.link && !(await this.o.link.ping())) return redisUnavailable();
    return (await this.o.outputs.reachable()) ? null : storageUnavailable();
  }

  /** Jobs waiting and rendering now. */
  load(): Promise<JobLoad> {
    return this.o.queue.load();
  }

  /** The job's estimated work, and the refusal when it cannot finish inside the job limit (work-admission.ts). */
  estimate(kind: JobKind, source: string, params: JobParams, assets: Record<string, string>): Promise<WorkAdmission> {
    return admitWork(this.o, kind, source, params, assets);
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
    if (hit && (await this.fromCache(rec, hit))) return rec;
    const cap = this.o.maxQueuedJobs ?? Infinity;
    if (!(await this.o.queue.admit(rec.job_id, cap)))
      throw new Refused(queueFull(await this.o.queue.admitted(), this.o.maxQueuedJobs!));
    try {
      await this.o.store.put(rec);
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
   * Makes a new job ready from the render cache; false when the copy could not be made (the job renders). The record
   * is stored pending before the copy is: every process's output budget then counts the copy's name as a rendering
   * job's and never evicts it, so no job is announced ready with a file the budget removed before its record existed.
   */
  private async fromCache(rec: JobRecord, hit: CacheHit): Promise<boolean> {
    await this.o.store.put(rec);
    let output: JobOutput;
    try {
      output = await this.o.outputs.addCopy(rec.job_id, rec.kind, rec.params, hit.output);
    } catch (err) {
      this.o.log.warn({ err, job_id: rec.job_id }, 'render cache copy failed: the job renders');
      await this.o.outputs.discard(rec.job_id, rec.kind, rec.params);
      // not stored until admitted to render (create() writes it again then)
      await this.o.store.delete(rec.job_id);
      return false;
    }
    Object.assign(rec, cachedFields(rec, output, hit.runner));
    if (!(await this.o.store.endIfPending(rec))) {
      // cancelled while the copy was made: the client was told so, the copy goes
      await this.o.outputs.remove(output);
      Object.assign(rec, (await this.o.store.get(rec.job_id)) ?? {});
      return true;
    }
    this.o.log.info(
      { job_id: rec.job_id, kind: rec.kind, status: 'ready', event: 'job_cached', total_ms: rec.timings?.total_ms },
      'job ready from the render cache',
    );
    this.events.emit('ended', rec);
    return true;
  }

  /**
   * Ends a pending or rendering job in error with code `cancelled`: its record first (the first end wins, so a
   * finish racing it loses and its file goes), then its work. A waiting job leaves the line at once; one rendering in
   * this process is stopped, and this resolves once the renderer has let go of its page and encoder and the partial
   * file is gone; one rendering in another process stops at its next progress.
   */
  /** Cancels a pending job; `reaches` says whether the caller may see it at all (else it is not found). */
  async cancel(id: string, reaches: (rec: JobRecord) => boolean = () => true): Promise<CancelResult> {
    const rec = await this.o.store.get(id);
    if (!rec || !reaches(rec)) return { ok: false, reason: 'not_found' };
    if (rec.status !== 'pending') return { ok: false, reason: 'ended', rec };
    const ended = await endJob(this.o.store, id, { message: CANCELLED, code: CODE.cancelled }, this.o.now);
    if (!ended) return { ok: false, reason: 'ended', rec: (await this.o.store.get(id)) ?? rec };
    await this.o.queue.withdraw(id);
    this.o.log.info({ job_id: id, kind: rec.kind, status: 'error', event: 'job_cancelled' }, 'job cancelled');
    this.events.emit('ended', ended);
    this.events.emit('queue');
    return { ok: true, rec: ended };
  }

  /** The record; a pending one's live state (place, progress) is read with it, for view(). */
  async get(id: string): Promise<JobRecord | undefined> {
    const rec = await this.o.store.get(id);
    if (!rec || rec.status !== 'pending') return rec;
    // a job whose queue entry failed for good or vanished ends here, so none stays pending for ever
    const lost = await this.o.lost?.(rec);
    if (lost) {
      const ended = await endJob(this.o.store, id, lost, this.o.now);
      if (ended) {
        this.events.emit('ended', ended);
        return ended;
      }
      return this.o.store.get(id);
    }
    // what the read learnt travels with the record object it returns (for view()), not in a map of this process: a
    // map by id kept an entry for every job read while pending and never read after, for good
    Object.defineProperty(rec, LIVE, { value: await this.o.queue.live(rec), enumerable: false });
    return rec;
  }

  /** The public view of a record, with its place in the queue and its progress (as get() read them). */
  view(rec: JobRecord): JobView {
    const live = (rec as { [LIVE]?: LiveJobState })[LIVE];
    return jobView(rec, rec.status === 'pending' ? (live ?? {}) : {});
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
