// The job lifecycle: create -> queue -> render -> ready | error, recovery at start, and stopping (close interrupts,
// shutdown checkpoints). Where outputs live is the output store's business, when records go is retention's.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { JobRecord, JobStore, JobParams, WebhookState } from './store.js';
import { RenderQueue } from './queue.js';
import { settleWithin } from './settle.js';
import { deadline } from '../../contract/deadline.js';
import { CANCELLED, INTERRUPTED, failureOf, readyFields, stageTimings } from './job-failure.js';
import { timeLimitReason } from '../../contract/job-reasons.js';
import { admitWork, type WorkAdmission } from './work-admission.js';
import { jobView } from './job-view.js';
import type { Renderer, RenderOutcome } from '../../render/renderer-port.js';
import { JobFailure } from '../../render/renderer-port.js';
import type { JobKind, JobView } from '../http/schemas/jobs.js';
import type { AssetStore } from '../storage/asset-store.js';
import type { OutputStore } from '../storage/output-store.js';
import { planRecovery } from '../durability/recovery.js';
import {
  diskFull,
  journalUnwritable,
  queueFull,
  rendererUnavailable,
  shuttingDown,
  type Refusal,
} from '../durability/admission.js';
import { CODE } from '../../contract/error-codes.js';
import type { DiskSpace } from '../storage/disk-space.js';
import type { RenderCache } from './render-cache.js';

export interface JobServiceOptions {
  store: JobStore;
  renderer: Renderer;
  assets: AssetStore;
  outputs: OutputStore;
  concurrency: number;
  jobTimeoutMs: number;
  /** jobs waiting or rendering at most (default: no cap) */
  maxQueuedJobs?: number;
  /** free space on DATA_DIR's disk (default: not watched) */
  disk?: DiskSpace;
  /** ended job records kept at most (MAX_ENDED_JOBS; default: no cap), the oldest-ended go first */
  maxEndedJobs?: number;
  /** local directory a job's downloaded inputs go into while it runs (one subdirectory per job) */
  scratchDir: string;
  /** the render cache (default: none) */
  cache?: RenderCache;
  log: Logger;
  now: () => number;
}

export { CANCELLED };

/** What a client may attach to a new job besides its body (webhooks, idempotency). */
export interface JobExtras {
  webhook?: WebhookState;
  idempotency?: { key: string; hash: string };
  /** false: render afresh, not from the render cache (Cache-Control: no-cache, params.cache false); it still fills it */
  cache?: boolean;
}

/**
 * What the job service tells listeners (webhooks, the events stream):
 * - `changed` (job_id): the job's live state moved (progress);
 * - `queue`: the line moved (a job was added, started, or ended), so every waiting job's position may have changed;
 * - `ended` (record): a job reached ready or error and that is on disk;
 * - `created` (record): a new job was accepted (an idempotent replay is not one);
 * - `rendered` (record, outcome): a job's render finished and its output is stored (metrics read its stage times).
 */
export interface JobEvents {
  changed: [id: string];
  queue: [];
  ended: [rec: JobRecord];
  created: [rec: JobRecord];
  rendered: [rec: JobRecord, outcome: RenderOutcome];
}

/** Jobs waiting and rendering now (in Redis mode: the shared queue's). */
export interface JobLoad {
  waiting: number;
  running: number;
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
  const { cache: _useCache, ...kept } = extras;
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

/** How long a timed-out or checkpointed render may take to release its page and encoder before the next starts. */
const STOP_SETTLE_MS = 5_000;

export class JobService {
  readonly queue: RenderQueue;
  readonly events = new EventEmitter<JobEvents>();
  /** jobs a client cancelled while they were rendering: their abort ends them as cancelled */
  private readonly cancelling = new Set<string>();
  private readonly progress = new Map<string, number>();
  /** abort controllers of the jobs rendering now */
  private readonly running = new Map<string, { ctl: AbortController; done: Promise<void> }>();
  private closing = false;
  /** SIGTERM: no new job is admitted (503 shutting_down) */
  private stopping = false;
  /** set when shutdown() aborts the jobs in hand: they are checkpointed (pending again), not failed */
  private checkpointing = false;
  /** jobs recovered at init, queued by resume() once the renderer is up */
  private recovered: string[] = [];
  /** jobs admitted whose record is being written: they count against MAX_QUEUED_JOBS already (an exact cap) */
  private reserved = 0;
  /** the ended jobs whose records are kept, oldest-ended first (MAX_ENDED_JOBS) */
  private readonly endedIds = new Set<string>();

  constructor(private readonly o: JobServiceOptions) {
    this.queue = new RenderQueue(o.concurrency, o.now);
    // every SSE stream listens; more than the default 10 is normal, not a leak
    this.events.setMaxListeners(0);
    this.events.on('ended', (rec) => this.keepEnded(rec.job_id));
  }

  /**
   * Counts an ended job against MAX_ENDED_JOBS: past it, the record (and output) of the job that ended first goes,
   * so memory and the journal are bounded by configuration, not by how fast clients POST.
   */
  private keepEnded(id: string): void {
    this.endedIds.delete(id);
    this.endedIds.add(id);
    const cap = this.o.maxEndedJobs ?? Infinity;
    while (this.endedIds.size > cap) {
      const oldest = this.endedIds.values().next().value as string;
      this.endedIds.delete(oldest);
      void this.evict(oldest).catch((err) => this.o.log.warn({ err, job_id: oldest }, 'evicting a record failed'));
    }
  }

  private async evict(id: string): Promise<void> {
    const rec = await this.o.store.get(id);
    if (!rec || rec.status === 'pending') return;
    await this.o.store.delete(id);
    if (rec.output) await this.o.outputs.remove(rec.output);
    this.o.log.info({ job_id: id, event: 'job_evicted' }, 'ended job record evicted (MAX_ENDED_JOBS)');
  }

  /**
   * At start, from the stored records (durability/recovery.ts): pending jobs are queued again in created_at order
   * (by resume()); the one that was rendering when the service stopped is queued once more, or ends in error if it
   * already was.
   */
  async init(): Promise<void> {
    const records = await this.o.store.list();
    const plan = planRecovery(records, this.o.now());
    for (const rec of plan.updates) {
      await this.o.store.put(rec);
      // the cut render left at most a partial file: it goes (a requeued job writes it again)
      await this.o.outputs.discard(rec.job_id, rec.kind, rec.params);
    }
    for (const id of plan.failed)
      this.o.log.warn(
        { job_id: id, status: 'error', event: 'job_interrupted' },
        'job interrupted twice: ended in error',
      );
    this.recovered = plan.requeue;
    const failed = new Set(plan.failed);
    const ended = records
      .filter((r) => r.status !== 'pending' || failed.has(r.job_id))
      .sort((a, b) => (a.completed_at ?? a.created_at) - (b.completed_at ?? b.created_at));
    for (const r of ended) this.keepEnded(r.job_id);
    if (plan.requeue.length || plan.failed.length)
      this.o.log.info(
        { requeued: plan.requeue.length, failed: plan.failed.length, event: 'jobs_recovered' },
        'jobs recovered from the journal',
      );
  }

  /** Queues the jobs recovered at init, in their order (called once the renderer has started). */
  resume(): void {
    const ids = this.recovered;
    this.recovered = [];
    if (this.stopping || this.closing) return;
    for (const id of ids) this.enqueue(id);
  }

  async close(): Promise<void> {
    // Stop taking work: waiting jobs stay pending, rendering jobs are interrupted and end in error.
    this.closing = true;
    this.queue.clear();
    for (const r of this.running.values()) r.ctl.abort(new Error('shutdown'));
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /**
   * Graceful stop (SIGTERM): no new job is admitted; waiting jobs stay pending in the store (queued again at the next
   * start); the jobs in hand get graceMs to finish, then they are aborted and checkpointed: pending again, as if they
   * had never started (a shutdown is not counted as an interruption).
   */
  async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    const dropped = this.queue.clear();
    if (dropped)
      this.o.log.info({ jobs: dropped, event: 'queue_checkpointed' }, 'waiting jobs stay pending for the next start');
    const inHand = [...this.running.values()].map((r) => r.done);
    if (!inHand.length) return;
    if (await settleWithin(Promise.allSettled(inHand), graceMs)) return;
    this.checkpointing = true;
    for (const [id, r] of this.running) {
      this.o.log.warn(
        { job_id: id, event: 'job_checkpointed' },
        'shutdown grace over: the job in hand is checkpointed for the next start',
      );
      r.ctl.abort(new Error('shutdown'));
    }
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /** Why a new job would be refused now (503), or null when it is welcome. */
  admission(): Refusal | null {
    if (this.stopping || this.closing) return shuttingDown();
    const cap = this.o.maxQueuedJobs;
    const queued = this.queue.size + this.reserved;
    if (cap !== undefined && queued >= cap) return queueFull(queued, cap);
    return this.o.outputs.refusal();
  }

  /** Why no job can be stored now (the journal cannot be written, the disk is full), or null. */
  async storageRefusal(): Promise<Refusal | null> {
    if (this.o.store.writable && !(await this.o.store.writable())) return journalUnwritable();
    const disk = this.o.disk;
    if (disk && (await disk.short())) return diskFull(await disk.free(), disk.minFreeBytes);
    return null;
  }

  /** Why the service cannot take work now (/healthz answers 503 with it), or null. A full queue is not counted. */
  async health(): Promise<Refusal | null> {
    if (this.stopping || this.closing) return shuttingDown();
    const fault = this.o.renderer.fault?.();
    if (fault) return rendererUnavailable(fault);
    return (await this.storageRefusal()) ?? this.o.outputs.refusal();
  }

  /** Why this process cannot take work now, as readiness sees it (/readyz): the same as health(). */
  ready(): Promise<Refusal | null> {
    return this.health();
  }

  /** Jobs waiting and rendering now. */
  async load(): Promise<JobLoad> {
    return { waiting: this.queue.size - this.running.size, running: this.running.size };
  }

  /** The job's estimated work, and the refusal when it cannot finish inside the job limit (work-admission.ts). */
  estimate(kind: JobKind, source: string, params: JobParams, assets: Record<string, string>): Promise<WorkAdmission> {
    return admitWork(this.o, kind, source, params, assets);
  }

  /**
   * Creates a pending job and queues it; the render runs in the background. Call right after admission() (no await
   * between): the job holds its place against MAX_QUEUED_JOBS from its first line. work: admission's estimate (the
   * queue's order) and frame count, kept on the record so nothing compiles the source again to know them.
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
    const useCache = extras.cache;
    this.reserved++;
    let cached = false;
    try {
      cached = (await this.o.cache?.tryReuse(rec, useCache !== false)) ?? false;
      await this.o.store.put(rec);
    } finally {
      this.reserved--;
    }
    if (cached) {
      this.o.log.info(
        { job_id: rec.job_id, kind, status: 'ready', event: 'job_cached', total_ms: rec.timings?.total_ms },
        'job ready from the render cache',
      );
      this.events.emit('ended', rec);
      return rec;
    }
    this.o.log.info({ job_id: rec.job_id, kind, status: 'pending', event: 'job_created' }, 'job pending');
    this.enqueue(rec.job_id, rec.estimate_s);
    this.events.emit('created', rec);
    this.events.emit('queue');
    return rec;
  }

  /**
   * Ends a pending or rendering job in error with code `cancelled`. A waiting job leaves the line at once; a rendering
   * one is aborted through its AbortSignal and this resolves once the renderer has let go of its page and encoder and
   * the partial file is gone (bounded by STOP_SETTLE_MS), so the answer is the job's final state.
   */
  async cancel(id: string): Promise<CancelResult> {
    const rec = await this.o.store.get(id);
    if (!rec) return { ok: false, reason: 'not_found' };
    if (rec.status !== 'pending') return { ok: false, reason: 'ended', rec };
    const running = this.running.get(id);
    if (running) {
      this.cancelling.add(id);
      running.ctl.abort(new Error('cancelled'));
      await running.done;
      const after = (await this.o.store.get(id)) ?? rec;
      // the render may have finished in the same instant: then the job is ready and the cancel came too late
      return after.status === 'error' && after.code === CODE.cancelled
        ? { ok: true, rec: after }
        : { ok: false, reason: 'ended', rec: after };
    }
    this.queue.remove(id);
    const now = this.o.now();
    Object.assign(rec, {
      status: 'error',
      completed_at: now,
      message: CANCELLED,
      code: CODE.cancelled,
      timings: { total_ms: now - rec.created_at },
    } satisfies Partial<JobRecord>);
    delete rec.progress;
    await this.o.store.put(rec);
    this.o.log.info(
      { job_id: id, kind: rec.kind, status: 'error', event: 'job_cancelled' },
      'job cancelled while waiting',
    );
    this.events.emit('queue');
    this.events.emit('ended', rec);
    return { ok: true, rec };
  }

  get(id: string): Promise<JobRecord | undefined> {
    return this.o.store.get(id);
  }

  /** The public view of a record, with its place in the queue and its progress. */
  view(rec: JobRecord): JobView {
    return jobView(rec, { queuePosition: this.queue.position(rec.job_id), progress: this.progress.get(rec.job_id) });
  }

  /** Renders outside the store (GET /test): same queue, same renderer, output returned to the caller. */
  async renderDirect(kind: JobKind, source: string, params: JobParams, outPath: string): Promise<RenderOutcome> {
    const id = randomUUID();
    return this.queue.add(id, async () => {
      const ctl = new AbortController();
      const limit = deadline(ctl, this.o.jobTimeoutMs);
      try {
        return await this.o.renderer.render({ id, kind, source, params, assets: {}, outPath }, { signal: ctl.signal });
      } finally {
        limit.clear();
      }
    });
  }

  private setProgress(id: string, p: number): void {
    this.progress.set(id, p);
    this.events.emit('changed', id);
  }

  private enqueue(id: string, costSeconds = 0): void {
    void this.queue
      .add(id, () => this.run(id), costSeconds)
      .catch((err) => this.o.log.error({ err, job_id: id }, 'job runner crashed'));
  }

  private run(id: string): Promise<void> {
    if (this.closing) return Promise.resolve();
    const ctl = new AbortController();
    const done = this.runJob(id, ctl).finally(() => this.running.delete(id));
    this.running.set(id, { ctl, done });
    return done;
  }

  private async runJob(id: string, ctl: AbortController): Promise<void> {
    const rec = await this.o.store.get(id);
    if (!rec || rec.status !== 'pending') return;
    const started = this.o.now();
    rec.started_at = started;
    await this.o.store.put(rec);
    const queueWait = started - rec.created_at;
    this.o.log.info(
      { job_id: id, kind: rec.kind, status: 'rendering', event: 'job_started', queue_wait_ms: queueWait },
      'job started',
    );
    this.events.emit('queue');

    const limit = deadline(ctl, this.o.jobTimeoutMs);
    const cancelled = () => this.cancelling.has(id) && !limit.timedOut;
    // the time limit and a stop end the job even when the renderer ignores the abort
    const aborted = new Promise<never>((_, reject) => {
      const fail = () =>
        reject(
          new JobFailure(limit.timedOut ? timeLimitReason(this.o.jobTimeoutMs) : cancelled() ? CANCELLED : INTERRUPTED),
        );
      if (ctl.signal.aborted) fail();
      else ctl.signal.addEventListener('abort', fail, { once: true });
    });
    aborted.catch(() => {});
    let rendering: Promise<unknown> | undefined;
    const scratch = join(this.o.scratchDir, id);
    try {
      // inputs down to local scratch, the output rendered into scratch and uploaded by outputs.add
      const assetFiles = await this.o.assets.localFiles(rec.assets, scratch);
      const outPath = await this.o.outputs.scratchPath(id, rec.kind, rec.params);
      this.progress.set(id, 0);
      const outcome = await Promise.race([
        (rendering = this.o.renderer.render(
          {
            id,
            kind: rec.kind,
            source: rec.source,
            params: rec.params,
            assets: assetFiles,
            outPath,
          },
          { signal: ctl.signal, onProgress: (p) => this.setProgress(id, p) },
        )),
        aborted,
      ]);
      const output = await this.o.outputs.add(id, rec.kind, outcome, rec.params);
      const done = output.written_at;
      const fresh = (await this.o.store.get(id)) ?? rec;
      Object.assign(fresh, readyFields(fresh, output, outcome.runner, stageTimings(outcome)));
      await this.o.store.put(fresh);
      await this.o.cache?.remember(fresh);
      this.events.emit('rendered', fresh, outcome);
      this.events.emit('ended', fresh);
      this.o.log.info(
        {
          job_id: id,
          kind: rec.kind,
          status: 'ready',
          event: 'job_ready',
          queue_wait_ms: queueWait,
          ...outcome.timings,
          total_ms: done - rec.created_at,
          width: outcome.width,
          height: outcome.height,
          frames: outcome.frames,
          bytes: output.bytes,
        },
        'job ready',
      );
    } catch (err) {
      // a stopped render (time limit, cancel, checkpoint) releases its page and kills its ffmpeg before the next job
      // starts, and before a cancel is answered (no partial file may be left behind it)
      // a job past its limit is answered at once; its page and encoder are let go before the next job starts
      const stopped = (limit.timedOut || cancelled() || this.checkpointing) && rendering;
      if (stopped && !limit.timedOut) await settleWithin(stopped, STOP_SETTLE_MS);
      const done = this.o.now();
      const fresh = (await this.o.store.get(id)) ?? rec;
      if (this.checkpointing && !limit.timedOut && !cancelled()) {
        delete fresh.started_at;
        delete fresh.progress;
        await this.o.store.put(fresh).catch((e) => this.o.log.error({ err: e, job_id: id }, 'checkpoint failed'));
        await this.o.outputs.discard(id, rec.kind, rec.params);
        return;
      }
      Object.assign(
        fresh,
        cancelled()
          ? { message: CANCELLED, code: CODE.cancelled }
          : failureOf(err, { timedOut: limit.timedOut, aborted: ctl.signal.aborted, limitMs: this.o.jobTimeoutMs }),
      );
      delete fresh.progress;
      fresh.status = 'error';
      fresh.completed_at = done;
      fresh.timings = { queue_wait_ms: queueWait, total_ms: done - rec.created_at };
      if (!limit.timedOut) await this.o.outputs.discard(id, rec.kind, rec.params);
      await this.o.store.put(fresh);
      this.events.emit('ended', fresh);
      if (limit.timedOut) {
        if (stopped) await settleWithin(stopped, STOP_SETTLE_MS);
        await this.o.outputs.discard(id, rec.kind, rec.params);
      }
      const level = err instanceof JobFailure && !limit.timedOut ? 'info' : 'warn';
      this.o.log[level](
        {
          job_id: id,
          kind: rec.kind,
          status: 'error',
          event: 'job_error',
          code: fresh.code,
          message: fresh.message,
          queue_wait_ms: queueWait,
          total_ms: done - rec.created_at,
          ...(err instanceof JobFailure ? {} : { err }),
        },
        'job error',
      );
    } finally {
      limit.clear();
      await rm(scratch, { recursive: true, force: true });
      this.progress.delete(id);
      this.cancelling.delete(id);
      // the line moves when a job leaves it (the next job's start emits again once it is in hand)
      this.events.emit('queue');
    }
  }
}
